//! cosmic-text 0.19.0 against parley 0.12.0: shaping and laying out multilingual text on the
//! CPU, with the same seven embedded fonts and no system fonts. See README.md.

use std::iter::once;
use std::time::Instant;

use cosmic_text::{
    Attrs, Buffer, Family, FontSystem, Metrics, Shaping, SwashCache, SwashContent, fontdb,
};
use parley::fontique::{
    Blob, Collection, CollectionOptions, FallbackKey, GenericFamily, Script, SourceCache,
};
use parley::{
    Alignment, AlignmentOptions, FontContext, FontFamily, FontFamilyName, Layout, LayoutContext,
    LineHeight, PositionedLayoutItem, StyleProperty,
};

macro_rules! font {
    ($file:literal) => {
        include_bytes!(concat!("../../../crates/wavekit-ui/fonts/", $file)).as_slice()
    };
}

/// The fonts, by family name. "Noto Sans" is the paragraphs' family; the others are fallbacks.
const FONTS: [(&str, &[u8]); 7] = [
    ("Noto Sans", font!("NotoSans-subset.ttf")),
    ("Noto Sans Arabic", font!("NotoSansArabic-subset.ttf")),
    ("Noto Sans Hebrew", font!("NotoSansHebrew-subset.ttf")),
    (
        "Noto Sans Devanagari",
        font!("NotoSansDevanagari-subset.ttf"),
    ),
    ("Noto Sans Thai", font!("NotoSansThai-subset.ttf")),
    ("Noto Sans CJK SC", font!("NotoSansSC-subset.otf")),
    ("Noto Color Emoji", font!("NotoColorEmoji-subset.ttf")),
];
const STRINGS: &str = include_str!("../../../crates/wavekit-ui/fonts/strings.txt");
const SIZE: f32 = 16.0;
const LINE_HEIGHT: f32 = 1.2;
const WIDTH: f32 = 400.0;
const PARAGRAPH_CHARS: usize = 10_000;

/// What a layout came to: lines, glyphs, glyphs with id 0, and the fonts its glyphs came from.
#[derive(Default)]
struct Stats {
    lines: usize,
    glyphs: usize,
    missing: usize,
    fonts: Vec<String>,
}

impl Stats {
    fn add(&mut self, glyph_id: u32, font: &str) {
        self.glyphs += 1;
        self.missing += usize::from(glyph_id == 0);
        if !self.fonts.iter().any(|f| f == font) {
            self.fonts.push(font.to_owned());
        }
    }
}

/// Warm-up, then the median of `reps` timed calls, in microseconds.
fn median_us(reps: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..3 {
        f();
    }
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

// cosmic-text: a FontSystem over a fontdb filled with the seven fonts; cosmic-text's own
// per-script fallback lists (Noto family names) reach the others.

fn cosmic_system() -> FontSystem {
    let mut db = fontdb::Database::new();
    for (_, bytes) in FONTS {
        db.load_font_data(bytes.to_vec());
    }
    FontSystem::new_with_locale_and_db("en-US".into(), db)
}

fn cosmic_buffer() -> Buffer {
    Buffer::new_empty(Metrics::relative(SIZE, LINE_HEIGHT))
}

fn cosmic_layout(fs: &mut FontSystem, buf: &mut Buffer, text: &str, width: Option<f32>) {
    buf.set_size(width, None);
    let attrs = Attrs::new().family(Family::Name("Noto Sans"));
    buf.set_text(text, &attrs, Shaping::Advanced, None);
    buf.shape_until_scroll(fs, false);
}

fn cosmic_stats(fs: &FontSystem, buf: &Buffer) -> Stats {
    let mut s = Stats::default();
    for run in buf.layout_runs() {
        s.lines += 1;
        for g in run.glyphs {
            let face = fs.db().face(g.font_id);
            let name = face
                .and_then(|f| f.families.first())
                .map_or("?", |(n, _)| n.as_str());
            s.add(u32::from(g.glyph_id), name);
        }
    }
    s
}

// parley: a FontContext whose fontique collection has no system fonts, the seven fonts
// registered from bytes. Without system fonts fontique's fallback table starts empty, so with
// `fallbacks` the per-script fallbacks and the emoji generic family are filled in here.

fn parley_fonts(fallbacks: bool) -> FontContext {
    let options = CollectionOptions {
        shared: false,
        system_fonts: false,
    };
    let mut collection = Collection::new(options);
    let ids: Vec<_> = FONTS
        .iter()
        .map(|(_, bytes)| collection.register_fonts(Blob::from(bytes.to_vec()), None)[0].0)
        .collect();
    if fallbacks {
        for (i, script) in [
            (1, b"Arab"),
            (2, b"Hebr"),
            (3, b"Deva"),
            (4, b"Thai"),
            (5, b"Hani"),
        ] {
            let key = FallbackKey::from(Script::from_bytes(*script));
            collection.append_fallbacks(key, once(ids[i]));
        }
        collection.append_generic_families(GenericFamily::Emoji, once(ids[6]));
    }
    FontContext {
        collection,
        source_cache: SourceCache::default(),
    }
}

fn parley_layout(
    fcx: &mut FontContext,
    lcx: &mut LayoutContext,
    layout: &mut Layout<[u8; 4]>,
    text: &str,
    width: Option<f32>,
) {
    let mut b = lcx.ranged_builder(fcx, text, 1.0, true);
    let family = FontFamily::Single(FontFamilyName::Named("Noto Sans".into()));
    b.push_default(StyleProperty::FontFamily(family));
    b.push_default(StyleProperty::FontSize(SIZE));
    b.push_default(StyleProperty::LineHeight(LineHeight::FontSizeRelative(
        LINE_HEIGHT,
    )));
    b.build_into(layout, text);
    layout.break_all_lines(width);
    layout.align(Alignment::Start, AlignmentOptions::default());
}

fn parley_stats(layout: &Layout<[u8; 4]>) -> Stats {
    let mut s = Stats::default();
    for line in layout.lines() {
        s.lines += 1;
        for item in line.items() {
            if let PositionedLayoutItem::GlyphRun(run) = item {
                // The font, by its data: each of the seven files has a different length.
                let len = run.run().font().data.len();
                let name = FONTS
                    .iter()
                    .find(|(_, b)| b.len() == len)
                    .map_or("?", |(n, _)| n);
                for g in run.glyphs() {
                    s.add(g.id, name);
                }
            }
        }
    }
    s
}

/// cosmic-text's own CPU rasterizer (swash) over every glyph of `buf`: (mask, colour, none).
fn cosmic_rasterize(fs: &mut FontSystem, buf: &Buffer) -> (usize, usize, usize) {
    let mut cache = SwashCache::new();
    let (mut mask, mut color, mut none) = (0, 0, 0);
    for run in buf.layout_runs() {
        for g in run.glyphs {
            let key = g.physical((0.0, 0.0), 1.0).cache_key;
            match cache.get_image_uncached(fs, key).map(|i| i.content) {
                Some(SwashContent::Color) => color += 1,
                Some(_) => mask += 1,
                None => none += 1,
            }
        }
    }
    (mask, color, none)
}

fn main() {
    let lines: Vec<&str> = STRINGS.lines().filter(|l| !l.is_empty()).collect();
    let mut paragraph = String::new();
    while paragraph.chars().count() < PARAGRAPH_CHARS {
        for l in &lines {
            paragraph.push_str(l);
            paragraph.push(' ');
        }
    }
    let paragraph = paragraph.trim_end();

    let mut fs = cosmic_system();
    let mut buf = cosmic_buffer();
    let mut fcx = parley_fonts(true);
    let mut lcx = LayoutContext::new();
    let mut layout = Layout::new();
    let mut bare_fcx = parley_fonts(false);

    println!("cosmic-text 0.19.0 vs parley 0.12.0, {SIZE} px, release, median µs");
    println!("\n(a) each line alone, no width; contexts and Buffer/Layout reused (201 reps)");
    println!(
        "{:<12} {:>9} {:>9} | {:>7} {:>7} | {:>8} {:>8} {:>10}",
        "line", "cosmic µs", "parley µs", "cos gl", "par gl", "cos miss", "par miss", "bare miss"
    );
    for (i, text) in lines.iter().enumerate() {
        let c_us = median_us(201, || cosmic_layout(&mut fs, &mut buf, text, None));
        let c = cosmic_stats(&fs, &buf);
        let p_us = median_us(201, || {
            parley_layout(&mut fcx, &mut lcx, &mut layout, text, None)
        });
        let p = parley_stats(&layout);
        parley_layout(&mut bare_fcx, &mut lcx, &mut layout, text, None);
        let bare = parley_stats(&layout);
        let label: String = text.chars().take(12).collect();
        println!(
            "{:<12} {:>9.1} {:>9.1} | {:>7} {:>7} | {:>8} {:>8} {:>10}",
            format!("{}:{label}", i + 1),
            c_us,
            p_us,
            c.glyphs,
            p.glyphs,
            c.missing,
            p.missing,
            bare.missing
        );
        println!("    fonts  cosmic-text: {}", c.fonts.join(", "));
        println!("           parley:      {}", p.fonts.join(", "));
        println!("           parley bare: {}", bare.fonts.join(", "));
    }

    let chars = paragraph.chars().count();
    let width = Some(WIDTH);
    println!(
        "\nparagraph: {chars} chars ({} bytes), wrapped at {WIDTH} px",
        paragraph.len()
    );
    let b_cos = median_us(21, || cosmic_layout(&mut fs, &mut buf, paragraph, width));
    let cb = cosmic_stats(&fs, &buf);
    let b_par = median_us(21, || {
        parley_layout(&mut fcx, &mut lcx, &mut layout, paragraph, width)
    });
    let pb = parley_stats(&layout);
    let c_cos = median_us(21, || {
        cosmic_layout(&mut fs, &mut cosmic_buffer(), paragraph, width)
    });
    let c_par = median_us(21, || {
        parley_layout(&mut fcx, &mut lcx, &mut Layout::new(), paragraph, width)
    });
    println!("{:<34} {:>10} {:>10}", "(21 reps)", "cosmic-text", "parley");
    println!(
        "{:<34} {:>10.0} {:>10.0}",
        "(b) µs, Buffer/Layout reused", b_cos, b_par
    );
    println!(
        "{:<34} {:>10.0} {:>10.0}",
        "(c) µs, fresh Buffer/Layout", c_cos, c_par
    );
    println!("{:<34} {:>10} {:>10}", "glyphs", cb.glyphs, pb.glyphs);
    println!("{:<34} {:>10} {:>10}", "lines", cb.lines, pb.lines);
    println!(
        "{:<34} {:>10} {:>10}",
        "glyphs with id 0", cb.missing, pb.missing
    );
    // The same paragraph unwrapped: the glyph counts above differ by the spaces at wrap points.
    cosmic_layout(&mut fs, &mut buf, paragraph, None);
    parley_layout(&mut fcx, &mut lcx, &mut layout, paragraph, None);
    let (cu, pu) = (cosmic_stats(&fs, &buf).glyphs, parley_stats(&layout).glyphs);
    println!("{:<34} {:>10} {:>10}", "glyphs, unwrapped", cu, pu);

    println!("\nrasterization on the CPU, by the library itself");
    for text in &lines {
        cosmic_layout(&mut fs, &mut buf, text, None);
        let (mask, color, none) = cosmic_rasterize(&mut fs, &buf);
        let label: String = text.chars().take(12).collect();
        println!(
            "  cosmic-text SwashCache  {label:<12}: {mask} mask, {color} colour, {none} failed"
        );
    }
    println!("  parley: no rasterizer (glyph ids and positions only; use swash, vello_cpu, ...)");
}
