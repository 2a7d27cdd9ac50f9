//! Paragraphs on the CPU: shaping, bidirectional text, line breaking, alignment and font
//! fallback by cosmic-text (HarfRust shapes, swash rasterizes), ADR-0102. A paragraph becomes
//! glyph items as a run of [`crate::Text`] does: coverage glyphs in the glyph atlas, colour
//! glyphs (emoji: bitmaps or COLR) in the image atlas, each rasterized once per font, glyph,
//! size and subpixel step.
//!
//! Font fallback, for each piece of text the paragraph's font cannot draw: the Noto families
//! that cover its script (a table of this module's, the same on every platform; found among
//! the scene's fonts and, when loaded, the system's), then the scene's fonts in the order they
//! were added, the embedded DejaVu Sans last, then any other font loaded. A character no font
//! covers is drawn as the missing-glyph box and reported once ([`crate::Scene::warnings`]).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

use cosmic_text::fontdb;
use cosmic_text::{Fallback, FontSystem, SwashCache};

use crate::text::Font;

/// Family names live as long as the program: cosmic-text's fallback lists are `&'static str`.
/// Each distinct name is kept once, so the memory is bounded by the fonts ever loaded.
fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.get(name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(n);
    n
}

/// The fallback order above: the script's Noto families, then the scene's families.
struct SceneFallback {
    common: Vec<&'static str>,
}

impl Fallback for SceneFallback {
    fn common_fallback(&self) -> &[&'static str] {
        &self.common
    }

    fn forbidden_fallback(&self) -> &[&'static str] {
        &[]
    }

    fn script_fallback(&self, script: unicode_script::Script, _locale: &str) -> &[&'static str] {
        noto_for(script)
    }
}

/// The Noto families that cover `script`, the same on every platform (cosmic-text's own lists
/// differ by platform, and so would a scene's pixels: the web page drew Hebrew from DejaVu
/// Sans where Linux drew it from Noto Sans Hebrew). Scripts not named here fall back to the
/// scene's fonts in order.
fn noto_for(script: unicode_script::Script) -> &'static [&'static str] {
    use unicode_script::Script as S;
    match script {
        S::Arabic => &["Noto Sans Arabic", "Noto Naskh Arabic"],
        S::Armenian => &["Noto Sans Armenian"],
        S::Bengali => &["Noto Sans Bengali"],
        S::Cyrillic | S::Greek => &["Noto Sans"],
        S::Devanagari => &["Noto Sans Devanagari"],
        S::Ethiopic => &["Noto Sans Ethiopic"],
        S::Georgian => &["Noto Sans Georgian"],
        S::Gujarati => &["Noto Sans Gujarati"],
        S::Gurmukhi => &["Noto Sans Gurmukhi"],
        S::Han | S::Bopomofo => &[
            "Noto Sans CJK SC",
            "Noto Sans CJK TC",
            "Noto Sans CJK JP",
            "Noto Sans CJK KR",
        ],
        S::Hiragana | S::Katakana => &["Noto Sans CJK JP", "Noto Sans CJK SC"],
        S::Hangul => &["Noto Sans CJK KR", "Noto Sans CJK SC"],
        S::Hebrew => &["Noto Sans Hebrew"],
        S::Kannada => &["Noto Sans Kannada"],
        S::Khmer => &["Noto Sans Khmer"],
        S::Lao => &["Noto Sans Lao"],
        S::Malayalam => &["Noto Sans Malayalam"],
        S::Myanmar => &["Noto Sans Myanmar"],
        S::Sinhala => &["Noto Sans Sinhala"],
        S::Tamil => &["Noto Sans Tamil"],
        S::Telugu => &["Noto Sans Telugu"],
        S::Thai => &["Noto Sans Thai"],
        S::Tibetan => &["Noto Serif Tibetan"],
        _ => &[],
    }
}

/// The shaping state a scene keeps: cosmic-text's font system (the scene's fonts, the embedded
/// one, the system's when asked) and its rasterizer. Built on the first paragraph and again
/// after fonts change.
pub(crate) struct Shaper {
    pub(crate) system: FontSystem,
    pub(crate) swash: SwashCache,
    /// The family each scene font was loaded as, by [`crate::FontId`].
    pub(crate) families: Vec<&'static str>,
}

impl std::fmt::Debug for Shaper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Shaper({} faces)", self.system.db().len())
    }
}

/// The family of the embedded font.
pub(crate) const EMBEDDED_FAMILY: &str = "DejaVu Sans";

impl Shaper {
    /// A font system of `fonts` (the scene's, in order), the embedded font, and the system's
    /// fonts when `system` is set.
    pub(crate) fn new(fonts: &[Font], system: bool) -> Shaper {
        let mut db = fontdb::Database::new();
        #[cfg(not(target_arch = "wasm32"))]
        if system {
            db.load_system_fonts();
        }
        #[cfg(target_arch = "wasm32")]
        let _ = system;
        let mut families = Vec::with_capacity(fonts.len());
        let mut common = Vec::with_capacity(fonts.len() + 1);
        for f in fonts {
            let ids = db.load_font_source(fontdb::Source::Binary(f.bytes()));
            let family = ids
                .first()
                .and_then(|id| db.face(*id))
                .and_then(|face| face.families.first().map(|(n, _)| intern(n)))
                .unwrap_or(EMBEDDED_FAMILY);
            families.push(family);
            if !common.contains(&family) {
                common.push(family);
            }
        }
        db.load_font_source(fontdb::Source::Binary(Arc::new(dejavu::sans::regular())));
        if !common.contains(&EMBEDDED_FAMILY) {
            common.push(EMBEDDED_FAMILY);
        }
        db.set_sans_serif_family(EMBEDDED_FAMILY);
        let system = FontSystem::new_with_locale_and_db_and_fallback(
            "en-US".into(),
            db,
            SceneFallback { common },
        );
        Shaper {
            system,
            swash: SwashCache::new(),
            families,
        }
    }
}

/// A shaper shared by a scene and its clones (fonts are resources, as the atlases' contents).
pub(crate) type SharedShaper = Arc<Mutex<Option<Shaper>>>;
