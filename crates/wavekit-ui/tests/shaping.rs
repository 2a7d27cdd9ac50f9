//! Paragraphs against the shaping library's own output: for each script (Arabic, Hebrew with
//! points, Devanagari, Thai, Chinese, Latin ligatures, an emoji sequence) the glyphs and
//! advances a paragraph draws are those HarfRust gives for the same text and font, called here
//! directly, and the script's own behaviour shows (joining forms, right-to-left order, a matra
//! moved before its consonant, zero-width marks, one glyph for a ligature or a ZWJ sequence);
//! then bidirectional lines, wrapping, alignment, fallback, missing glyphs and bad input.
//! No GPU: paragraphs become items on the CPU (ui_gpu.rs renders them).

use wavekit_ui::*;

/// The sample fonts in a scene, their ids in [`Font::noto_samples`]'s order.
fn scene() -> (Scene, Vec<FontId>) {
    let mut s = Scene::new(640, 480).unwrap();
    let ids = Font::noto_samples()
        .into_iter()
        .map(|f| s.add_font(f))
        .collect();
    (s, ids)
}

const SAMPLE: [&[u8]; 7] = [
    include_bytes!("../fonts/NotoSans-subset.ttf"),
    include_bytes!("../fonts/NotoSansArabic-subset.ttf"),
    include_bytes!("../fonts/NotoSansHebrew-subset.ttf"),
    include_bytes!("../fonts/NotoSansDevanagari-subset.ttf"),
    include_bytes!("../fonts/NotoSansThai-subset.ttf"),
    include_bytes!("../fonts/NotoSansSC-subset.otf"),
    include_bytes!("../fonts/NotoColorEmoji-subset.ttf"),
];

/// HarfRust's glyphs for `text` in `font` (visual order) and their advances at `size`.
fn harfrust(font: &[u8], text: &str, size: f32) -> Vec<(u16, f32)> {
    let f = harfrust::FontRef::new(font).unwrap();
    let data = harfrust::ShaperData::new(&f);
    let shaper = data.shaper(&f).build();
    let mut b = harfrust::UnicodeBuffer::new();
    b.push_str(text);
    b.guess_segment_properties();
    let scale = size / shaper.units_per_em() as f32;
    let out = shaper.shape(b, &[]);
    out.glyph_infos()
        .iter()
        .zip(out.glyph_positions())
        .map(|(i, p)| (i.glyph_id as u16, p.x_advance as f32 * scale))
        .collect()
}

/// The glyph the font's character map gives `c` (its isolated, unshaped form).
fn cmap(font: &[u8], c: char) -> u16 {
    let f = harfrust::FontRef::new(font).unwrap();
    let data = harfrust::ShaperData::new(&f);
    let shaper = data.shaper(&f).build();
    let mut b = harfrust::UnicodeBuffer::new();
    b.push_str(&c.to_string());
    b.guess_segment_properties();
    // One character shaped alone: its nominal glyph (no neighbour to join or reorder with).
    shaper.shape(b, &[]).glyph_infos()[0].glyph_id as u16
}

const SIZE: f32 = 24.0;

struct Case {
    text: &'static str,
    font: usize,
    family: &'static str,
    rtl: bool,
}

const CASES: [Case; 7] = [
    Case {
        text: "office",
        font: 0,
        family: "Noto Sans",
        rtl: false,
    },
    Case {
        text: "مرحبا",
        font: 1,
        family: "Noto Sans Arabic",
        rtl: true,
    },
    Case {
        text: "שָׁלוֹם",
        font: 2,
        family: "Noto Sans Hebrew",
        rtl: true,
    },
    Case {
        text: "हिन्दी",
        font: 3,
        family: "Noto Sans Devanagari",
        rtl: false,
    },
    Case {
        text: "น้ำสวัสดี",
        font: 4,
        family: "Noto Sans Thai",
        rtl: false,
    },
    Case {
        text: "你好世界",
        font: 5,
        family: "Noto Sans CJK SC",
        rtl: false,
    },
    Case {
        text: "👩\u{200d}👩\u{200d}👧",
        font: 6,
        family: "Noto Color Emoji",
        rtl: false,
    },
];

/// Each script's word, drawn from the Latin font (so the script's font comes by fallback):
/// the glyphs, their advances and pen positions are HarfRust's, in that font.
#[test]
fn every_script_keeps_the_shapers_glyphs_and_advances() {
    for case in &CASES {
        let (mut s, ids) = scene();
        let x0 = 20.0;
        let p = Paragraph::new(case.text, ids[0], SIZE, x0, 30.0);
        let layout = s.paragraph(&p).unwrap();
        let want = harfrust(SAMPLE[case.font], case.text, SIZE);
        let got: Vec<(u16, f32)> = layout.glyphs.iter().map(|g| (g.glyph, g.advance)).collect();
        assert_eq!(
            got.iter().map(|g| g.0).collect::<Vec<_>>(),
            want.iter().map(|g| g.0).collect::<Vec<_>>(),
            "{}: glyph ids",
            case.text
        );
        let mut pen = x0;
        for (g, w) in layout.glyphs.iter().zip(&want) {
            assert_eq!(&*g.family, case.family, "{}: drawn from", case.text);
            assert!((g.advance - w.1).abs() < 1e-3, "{}: advance", case.text);
            assert_eq!(g.rtl, case.rtl, "{}: direction", case.text);
            // Marks sit where the shaper offsets them; the pen moves by the advances.
            assert!(
                (g.x - pen).abs() < 2.0 || w.1 == 0.0,
                "{}: pen {} for glyph {} at {}",
                case.text,
                pen,
                g.glyph,
                g.x
            );
            pen += w.1;
        }
        assert!(
            layout.missing.is_empty(),
            "{}: {:?}",
            case.text,
            layout.missing
        );
        assert_eq!(layout.lines, 1);
        assert!(s.warnings().is_empty(), "{:?}", s.warnings());
        assert!(!s.is_empty(), "{}: nothing drawn", case.text);
    }
}

/// What each script's shaping does, seen in the glyphs (so a shaper that only mapped
/// characters to glyphs would fail).
#[test]
fn the_scripts_shape_as_their_writing_systems_do() {
    let (mut s, ids) = scene();
    let mut lay = |t: &str| {
        s.paragraph(&Paragraph::new(t, ids[0], SIZE, 0.0, 30.0))
            .unwrap()
    };
    // Latin: "ffi" is one ligature glyph.
    let l = lay("office");
    assert!(l.glyphs.len() < 6, "no ligature: {} glyphs", l.glyphs.len());
    assert!(
        l.glyphs.iter().any(|g| g.text.len() == 3),
        "no three-letter cluster"
    );
    // Arabic: letters take their joined forms, not the isolated ones, and the first letter
    // (logically) is drawn rightmost.
    let word = "مرحبا";
    let l = lay(word);
    let isolated: Vec<u16> = word.chars().map(|c| cmap(SAMPLE[1], c)).collect();
    let joined = l
        .glyphs
        .iter()
        .filter(|g| !isolated.contains(&g.glyph))
        .count();
    assert!(joined >= 2, "only {joined} joined forms in {:?}", l.glyphs);
    let first = l.glyphs.iter().find(|g| g.text.start == 0).unwrap();
    assert!(
        l.glyphs.iter().all(|g| g.x <= first.x),
        "the first letter is not rightmost"
    );
    // Hebrew points: marks with no advance of their own.
    let l = lay("שָׁלוֹם");
    assert!(l.glyphs.iter().filter(|g| g.advance == 0.0).count() >= 3);
    // Devanagari: the i-matra (logically after its consonant) is drawn first, left of it.
    let l = lay("हि");
    let matra = cmap(SAMPLE[3], 'ि');
    let ha = cmap(SAMPLE[3], 'ह');
    let order: Vec<u16> = l.glyphs.iter().map(|g| g.glyph).collect();
    let (im, ih) = (
        order.iter().position(|&g| g == matra),
        order.iter().position(|&g| g == ha),
    );
    assert!(
        matches!((im, ih), (Some(a), Some(b)) if a < b) || im.is_none(),
        "matra not before its consonant: {order:?}"
    );
    assert!(l.glyphs[0].glyph != ha, "ह drawn first: {order:?}");
    // Thai: the tone mark and the sara am's nikhahit sit over the consonant (no advance).
    let l = lay("น้ำ");
    assert!(l.glyphs.iter().any(|g| g.advance == 0.0), "{:?}", l.glyphs);
    // Chinese: a full em each.
    let l = lay("你好世界");
    assert_eq!(l.glyphs.len(), 4);
    assert!(l.glyphs.iter().all(|g| (g.advance - SIZE).abs() < 0.01));
    // Emoji: a ZWJ family is one colour glyph; a skin tone and a flag one each too.
    for e in ["👩\u{200d}👩\u{200d}👧", "👍🏽", "🇫🇷"] {
        let l = lay(e);
        assert_eq!(l.glyphs.len(), 1, "{e}: {:?}", l.glyphs);
        assert!(l.glyphs[0].color, "{e}: not drawn in colour");
    }
}

/// A Hebrew word inside a Latin line is reversed in place; a Latin word in a right-to-left
/// paragraph keeps its order; the paragraph direction decides which side the line starts.
#[test]
fn bidirectional_lines_order_runs_by_the_unicode_algorithm() {
    let (mut s, ids) = scene();
    let l = s
        .paragraph(&Paragraph::new("ab שלום cd", ids[0], SIZE, 0.0, 30.0))
        .unwrap();
    let at = |l: &ParagraphLayout, byte: usize| {
        l.glyphs.iter().find(|g| g.text.start == byte).unwrap().x
    };
    // a < b < (Hebrew, its first letter rightmost) < c < d.
    let (a, b, c, d) = (at(&l, 0), at(&l, 1), at(&l, 12), at(&l, 13));
    let shin = at(&l, 3);
    let mem = at(&l, 9);
    assert!(
        a < b && b < mem && mem < shin && shin < c && c < d,
        "{:?}",
        l.glyphs
    );
    // Right to left: the same line starts from the right edge of its width.
    let mut p = Paragraph::new("abc", ids[0], SIZE, 0.0, 30.0);
    p.width = Some(300.0);
    p.direction = Direction::Rtl;
    let l = s.paragraph(&p).unwrap();
    let right = l.glyphs.iter().map(|g| g.x + g.advance).fold(0.0, f32::max);
    assert!((right - 300.0).abs() < 1.0, "ends at {right}");
    assert!(at(&l, 0) < at(&l, 1), "a Latin word keeps its order");
    // Auto: an Arabic line starts at the right.
    p.direction = Direction::Auto;
    p.text = "مرحبا بالعالم".into();
    let l = s.paragraph(&p).unwrap();
    let right = l.glyphs.iter().map(|g| g.x + g.advance).fold(0.0, f32::max);
    assert!(
        (right - 300.0).abs() < 1.0,
        "an Arabic line ends at {right}"
    );
}

/// Lines break at spaces to fit the width (inside a word only when it cannot fit), each
/// aligned as asked.
#[test]
fn paragraphs_wrap_to_their_width_and_align() {
    let (mut s, ids) = scene();
    let text = "The quick brown fox jumps over the lazy dog and keeps on running far away";
    for (align, width) in [
        (Align::Left, 150.0),
        (Align::Center, 150.0),
        (Align::Right, 151.5),
        (Align::Justify, 200.0),
        (Align::Start, 97.0),
    ] {
        let mut p = Paragraph::new(text, ids[0], 16.0, 10.0, 5.0);
        p.width = Some(width);
        p.align = align;
        p.line_height = 1.5;
        let l = s.paragraph(&p).unwrap();
        assert!(l.lines >= 3, "{align:?}: {} lines", l.lines);
        assert!(
            (l.height - l.lines as f32 * 24.0).abs() < 0.01,
            "{align:?}: height {}",
            l.height
        );
        let mut lines: Vec<Vec<&ShapedGlyph>> = Vec::new();
        let mut last_y = f32::NAN;
        for g in &l.glyphs {
            if g.y != last_y {
                lines.push(Vec::new());
                last_y = g.y;
            }
            lines.last_mut().unwrap().push(g);
        }
        assert_eq!(lines.len(), l.lines);
        for (i, line) in lines.iter().enumerate() {
            let left = line.first().unwrap().x - 10.0;
            let ink: Vec<_> = line
                .iter()
                .filter(|g| !text[g.text.clone()].trim().is_empty())
                .collect();
            let right = ink.last().map_or(0.0, |g| g.x + g.advance) - 10.0;
            assert!(
                right <= width + 0.01,
                "{align:?} line {i} overflows: {right}"
            );
            let last = i + 1 == lines.len();
            match align {
                Align::Left | Align::Start => assert!(left.abs() < 0.01, "{align:?}: {left}"),
                Align::Right => assert!((right - width).abs() < 0.5, "right: {right}"),
                Align::Center => assert!(
                    (left - (width - right)).abs() < 1.0,
                    "centre: {left} and {}",
                    width - right
                ),
                Align::Justify if !last => assert!((right - width).abs() < 0.5, "justify: {right}"),
                _ => {}
            }
        }
    }
}

/// The scene's fonts are tried in the order added; a character none covers is drawn as the
/// missing-glyph box and reported once per scene frame.
#[test]
fn fallback_and_missing_glyphs() {
    let mut s = Scene::new(100, 100).unwrap();
    let dejavu = s.add_font(Font::dejavu_sans());
    // DejaVu has no Devanagari, Thai or CJK: boxes, reported once.
    let l = s
        .paragraph(&Paragraph::new("a 你好 b 你", dejavu, 12.0, 0.0, 0.0))
        .unwrap();
    assert_eq!(l.missing, vec!['你', '好']);
    assert!(l.glyphs.iter().any(|g| g.glyph == 0));
    assert_eq!(s.warnings().len(), 1);
    assert!(s.warnings()[0].contains("U+4F60"), "{}", s.warnings()[0]);
    s.paragraph(&Paragraph::new("你", dejavu, 12.0, 0.0, 20.0))
        .unwrap();
    assert_eq!(s.warnings().len(), 1, "reported twice: {:?}", s.warnings());
    // Adding a font that covers it: drawn from it.
    let cjk = Font::noto_samples().remove(5);
    s.add_font(cjk);
    let l = s
        .paragraph(&Paragraph::new("a 你好", dejavu, 12.0, 0.0, 40.0))
        .unwrap();
    assert!(l.missing.is_empty());
    assert_eq!(&*l.glyphs.last().unwrap().family, "Noto Sans CJK SC");
    assert_eq!(&*l.glyphs[0].family, "DejaVu Sans");
}

/// A script's Noto family comes before the scene's other fonts, whatever the platform: with
/// DejaVu Sans added first (it has Hebrew and Arabic), Hebrew and Arabic in a Noto Sans
/// paragraph still come from Noto Sans Hebrew and Arabic (the web page drew them from DejaVu
/// when the order came from cosmic-text's per-platform lists).
#[test]
fn a_scripts_noto_family_comes_before_the_scenes_other_fonts() {
    let mut s = Scene::new(100, 100).unwrap();
    s.add_font(Font::dejavu_sans());
    let ids: Vec<FontId> = Font::noto_samples()
        .into_iter()
        .map(|f| s.add_font(f))
        .collect();
    let l = s
        .paragraph(&Paragraph::new("ab שלום مرحبا", ids[0], 12.0, 0.0, 0.0))
        .unwrap();
    let fam = |byte: usize| {
        l.glyphs
            .iter()
            .find(|g| g.text.start == byte)
            .map(|g| g.family.to_string())
    };
    assert_eq!(fam(0).as_deref(), Some("Noto Sans"));
    assert_eq!(fam(3).as_deref(), Some("Noto Sans Hebrew"));
    assert_eq!(fam(12).as_deref(), Some("Noto Sans Arabic"));
}

/// Bad paragraphs are errors that say what to do; odd ones have graceful results.
#[test]
fn bad_paragraphs_are_refused_and_odd_ones_drawn() {
    let (mut s, ids) = scene();
    let base = Paragraph::new("hello world", ids[0], 14.0, 0.0, 0.0);
    let err = |s: &mut Scene, p: &Paragraph| s.paragraph(p).unwrap_err().to_string();
    let mut p = base.clone();
    p.width = Some(f32::NAN);
    assert!(err(&mut s, &p).contains("width is NaN"));
    let mut p = base.clone();
    p.size = 1000.0;
    assert!(err(&mut s, &p).contains("at most 512"));
    let mut one = Scene::new(10, 10).unwrap();
    one.add_font(Font::dejavu_sans());
    let mut p = base.clone();
    p.font = ids[6];
    assert!(err(&mut one, &p).contains("font 6 was not added"));
    let mut p = base.clone();
    p.align = Align::Center;
    assert!(err(&mut s, &p).contains("give the paragraph a width"));
    let mut p = base.clone();
    p.text = "x".repeat(1_000_000);
    let e = err(&mut s, &p);
    assert!(
        e.contains("1000000 characters") && e.contains("split"),
        "{e}"
    );
    // Width zero: a glyph a line, nothing lost.
    let mut p = base.clone();
    p.width = Some(0.0);
    let l = s.paragraph(&p).unwrap();
    assert!(
        l.glyphs
            .iter()
            .filter(|g| g.glyph != 0 && g.advance > 0.0)
            .count()
            >= 10
    );
    assert!(l.lines >= 10, "{} lines", l.lines);
    // Lines of no height: all on one baseline, nothing lost.
    let mut p = base.clone();
    p.line_height = 0.0;
    p.width = Some(30.0);
    let l = s.paragraph(&p).unwrap();
    assert!(
        l.lines >= 2 && l.glyphs.iter().all(|g| g.y == l.glyphs[0].y),
        "{l:?}"
    );
    // Empty text, zero size: nothing.
    let mut p = base.clone();
    p.text.clear();
    assert_eq!(s.paragraph(&p).unwrap(), ParagraphLayout::default());
    // Control characters and lone combining marks are drawn without a panic.
    let mut p = base.clone();
    p.text = "\u{0}\u{301}\t\r\n\u{202e}abc\u{200d}".into();
    s.paragraph(&p).unwrap();
}

/// Random text of words from every sample script, random widths, directions and alignments:
/// nothing missing, every glyph on its paragraph's lines and naming the caller's text; random
/// characters (a mark after a letter of another script, whose cluster no font covers): never a
/// panic.
#[test]
fn random_multilingual_paragraphs() {
    let words: Vec<&str> = SAMPLE_TEXT.split_whitespace().collect();
    let chars: Vec<char> = SAMPLE_TEXT.chars().collect();
    let mut rng = fastrand::Rng::with_seed(0x5a9e);
    let (mut s, ids) = scene();
    for i in 0..60 {
        let text: String = if i % 3 == 2 {
            (0..rng.usize(0..120))
                .map(|_| chars[rng.usize(..chars.len())])
                .collect()
        } else {
            let n = rng.usize(0..30);
            let mut t = String::new();
            for _ in 0..n {
                t.push_str(words[rng.usize(..words.len())]);
                t.push(if rng.u8(..) < 20 { '\n' } else { ' ' });
            }
            t
        };
        let mut p = Paragraph::new(
            text.clone(),
            ids[rng.usize(..ids.len())],
            rng.f32() * 40.0,
            5.0,
            7.0,
        );
        p.width = rng.bool().then(|| rng.f32() * 300.0);
        p.direction = [Direction::Auto, Direction::Ltr, Direction::Rtl][rng.usize(..3)];
        if p.width.is_some() {
            p.align = Align::ALL[rng.usize(..6)];
        }
        let l = s
            .paragraph(&p)
            .unwrap_or_else(|e| panic!("case {i} {text:?}: {e}"));
        if i % 3 != 2 {
            assert!(
                l.missing.is_empty(),
                "case {i}: {:?} in {text:?}",
                l.missing
            );
        }
        for g in &l.glyphs {
            assert!(
                g.text.end <= text.len()
                    && text.is_char_boundary(g.text.start)
                    && text.is_char_boundary(g.text.end),
                "case {i}: {:?}",
                g.text
            );
            assert!(
                g.y >= 7.0 && g.y <= 7.0 + l.height + 0.01,
                "case {i}: baseline {}",
                g.y
            );
        }
    }
}

/// A scene whose glyphs fill more than the glyph atlas keeps between frames (16 384 rows):
/// the next frame's clear starts the atlas afresh and says so, and glyphs are rasterized
/// again.
#[test]
fn a_full_glyph_atlas_starts_afresh_between_frames() {
    let (mut s, ids) = scene();
    let letters: String = ('A'..='Z').chain('a'..='z').collect();
    let frame = |s: &mut Scene| {
        for size in [500.0, 470.0, 440.0, 410.0] {
            let mut p = Paragraph::new(letters.as_str(), ids[0], size, 0.0, 0.0);
            p.width = Some(600.0);
            s.paragraph(&p).unwrap();
        }
    };
    frame(&mut s);
    assert!(s.warnings().is_empty());
    assert!(
        s.glyph_atlas_rows() > 1 << 14,
        "{} rows",
        s.glyph_atlas_rows()
    );
    let before = s.cached_glyphs();
    s.clear(640, 480).unwrap();
    assert!(
        s.warnings().iter().any(|w| w.contains("started afresh")),
        "{:?} ({before} glyphs)",
        s.warnings()
    );
    assert_eq!((s.len(), s.glyph_atlas_rows()), (0, 0));
    frame(&mut s);
    assert!(s.len() > 90, "{} items after the atlas restarted", s.len());
    s.clear(640, 480).unwrap();
}
