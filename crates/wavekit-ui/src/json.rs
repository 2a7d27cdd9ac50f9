//! The JSON scene format: what `wavekit ui render` reads and `wavekit ui bench --write-scenes`
//! writes.
//!
//! ```json
//! {"width": 320, "height": 200, "background": [255, 255, 255, 255],
//!  "items": [
//!    {"rect": {"x": 10, "y": 10, "w": 120, "h": 40, "radius": [8, 8, 8, 8], "fill": [40, 90, 200, 255],
//!              "border": {"width": 2, "color": [0, 0, 0, 255]}}},
//!    {"circle": {"cx": 200, "cy": 60, "r": 20, "fill": [220, 40, 40, 255]}},
//!    {"text": {"x": 20, "y": 36, "size": 14, "color": [255, 255, 255, 255], "font": "DejaVuSans.ttf", "text": "OK"}},
//!    {"image": {"x": 150, "y": 100, "w": 64, "h": 64, "path": "icon.png", "filter": "bilinear"}},
//!    {"push_clip": {"x": 0, "y": 90, "w": 140, "h": 100, "radius": 6}},
//!    {"rect": {"x": 5, "y": 95, "w": 300, "h": 20, "fill": [0, 160, 0, 128]}},
//!    {"pop_clip": {}}
//!  ]}
//! ```
//!
//! A paragraph is shaped in any script, ordered by the bidirectional algorithm and wrapped
//! ([`Scene::paragraph`]); its characters the font lacks come from the scene's other fonts, in
//! the order they were named, and, with `"system_fonts": true` at the top level, from the
//! system's.
//!
//! Colours are 8-bit sRGB-encoded RGBA, straight alpha; coordinates are pixels, origin top
//! left; paths are relative to the scene file and must lie in its folder or below
//! ([`AssetAccess`] allows more). Later items are drawn over earlier ones.
//!
//! | item | fields (optional in brackets) |
//! |---|---|
//! | `rect` | `x y w h` \[`radius`: one number or four, tl tr br bl\] \[`fill`\] \[`border`: `{width, color}`\] \[`ring`: width\] \[`opacity`\] |
//! | `circle` | `cx cy r` \[`fill`\] \[`border`\] \[`ring`\] \[`opacity`\] |
//! | `ellipse` | `cx cy rx ry` \[`fill`\] \[`border`\] \[`ring`\] \[`opacity`\] |
//! | `text` | `x y` (start of the baseline) `size` (pixels to the em) `color` `font` (a path, or `"embedded:dejavu-sans"`) `text` \[`opacity`\] |
//! | `paragraph` | `x y` (top left of its box) `size` `font` (a path, `"embedded:dejavu-sans"` or `"embedded:noto-samples"`) `text` \[`width`: where lines wrap\] \[`line_height`: × size, 1.25\] \[`color`\] \[`fallback`: more fonts, in order\] \[`align`: `start` `end` `left` `right` `center` `justify`\] \[`direction`: `auto` `ltr` `rtl`\] \[`opacity`\] |
//! | `image` | `x y w h path` \[`filter`: `"nearest"` or `"bilinear"`\] \[`tint`\] \[`src`: `[x, y, w, h]` of the image\] \[`opacity`\] |
//! | `shadow` | `x y w h` \[`radius`\] \[`offset`: `[dx, dy]`\] \[`blur`: CSS blur radius\] \[`spread`\] `color` \[`opacity`\] |
//! | `push_clip` | `x y w h` \[`radius`\] |
//! | `pop_clip` | (nothing) |
//!
//! A fill is a colour `[r, g, b, a]` or `{"linear": {"start": [x, y], "end": [x, y],
//! "stops": [[offset, [r, g, b, a]], …]}}`.
//!
//! A wrong scene is an error naming the item (its index in `items` and its kind) and what is
//! wrong: an unknown item or field, a missing font or image (with the path tried), a negative
//! size, a number that is not finite, a `pop_clip` without its `push_clip`, a `push_clip` left
//! open at the end.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::atlas::ImageId;
use crate::error::{Result, UiError};
use crate::scene::{self, Color, FontId, Scene};
use crate::text::Font;

/// The font name that means the embedded DejaVu Sans.
pub const EMBEDDED_FONT: &str = "embedded:dejavu-sans";

/// The font name that means the embedded Noto samples ([`Font::noto_samples`]): Noto Sans,
/// with Arabic, Hebrew, Devanagari, Thai, Chinese and colour emoji to fall back to, for the
/// characters of [`crate::SAMPLE_TEXT`] only.
pub const SAMPLE_FONTS: &str = "embedded:noto-samples";

/// A scene file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The colour under everything (default transparent).
    #[serde(default)]
    pub background: Color,
    /// Whether paragraphs may fall back to the system's fonts ([`Scene::use_system_fonts`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub system_fonts: bool,
    /// The items, in draw order.
    pub items: Vec<Item>,
}

/// One radius or four (tl, tr, br, bl).
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Radius {
    /// Every corner.
    One(f32),
    /// Top-left, top-right, bottom-right, bottom-left.
    Four([f32; 4]),
}

impl Default for Radius {
    fn default() -> Self {
        Radius::One(0.0)
    }
}

impl Radius {
    /// The four radii.
    pub fn corners(self) -> [f32; 4] {
        match self {
            Radius::One(r) => [r; 4],
            Radius::Four(r) => r,
        }
    }
}

/// A fill as written.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum FillJson {
    /// A colour.
    Solid(Color),
    /// A gradient.
    Gradient {
        /// The linear gradient.
        linear: GradientJson,
    },
}

// Radii and fills are read by hand: serde's untagged enums answer every mistake with "data
// did not match any variant" (issue 32); these say what was found and what is expected.
impl<'de> Deserialize<'de> for Radius {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error;
        let v = serde_json::Value::deserialize(d)?;
        let bad = || {
            D::Error::custom(format!(
                "radius {v}: give one number, or four [top-left, top-right, bottom-right, \
                 bottom-left]"
            ))
        };
        match &v {
            serde_json::Value::Number(n) => {
                n.as_f64().map(|r| Radius::One(r as f32)).ok_or_else(bad)
            }
            serde_json::Value::Array(a) if a.len() == 4 => {
                let mut r = [0f32; 4];
                for (x, e) in r.iter_mut().zip(a) {
                    *x = e.as_f64().ok_or_else(bad)? as f32;
                }
                Ok(Radius::Four(r))
            }
            _ => Err(bad()),
        }
    }
}

impl<'de> Deserialize<'de> for FillJson {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error;
        let v = serde_json::Value::deserialize(d)?;
        match &v {
            serde_json::Value::Array(a) => {
                let channel = |e: &serde_json::Value| e.as_u64().filter(|&c| c <= 255);
                if a.len() != 4 || a.iter().any(|e| channel(e).is_none()) {
                    return Err(D::Error::custom(format!(
                        "fill {v}: a colour is [r, g, b, a], four integers from 0 to 255"
                    )));
                }
                let mut c = [0u8; 4];
                for (x, e) in c.iter_mut().zip(a) {
                    *x = channel(e).unwrap_or(0) as u8;
                }
                Ok(FillJson::Solid(c))
            }
            serde_json::Value::Object(o) if o.len() == 1 && o.contains_key("linear") => {
                let linear = GradientJson::deserialize(&o["linear"])
                    .map_err(|e| D::Error::custom(format!("linear gradient: {e}")))?;
                Ok(FillJson::Gradient { linear })
            }
            _ => Err(D::Error::custom(format!(
                "fill {v}: give a colour [r, g, b, a] or {{\"linear\": {{\"start\": [x, y], \
                 \"end\": [x, y], \"stops\": [[offset, [r, g, b, a]], …]}}}}"
            ))),
        }
    }
}

/// A linear gradient as written.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GradientJson {
    /// Offset 0.
    pub start: [f32; 2],
    /// Offset 1.
    pub end: [f32; 2],
    /// (offset, colour).
    pub stops: Vec<(f32, Color)>,
}

/// A border as written.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BorderJson {
    /// Width.
    pub width: f32,
    /// Colour.
    pub color: Color,
}

fn one() -> f32 {
    1.0
}

fn white() -> Color {
    [255; 4]
}

fn black() -> Color {
    [0, 0, 0, 255]
}

fn transparent() -> FillJson {
    FillJson::Solid([0; 4])
}

/// `rect`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct RectJson {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
    #[serde(default)]
    pub radius: Radius,
    #[serde(default = "transparent")]
    pub fill: FillJson,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub border: Option<BorderJson>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ring: Option<f32>,
    #[serde(default = "one")]
    pub opacity: f32,
}

/// `circle`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct CircleJson {
    pub cx: f32,
    pub cy: f32,
    pub r: f32,
    #[serde(default = "transparent")]
    pub fill: FillJson,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub border: Option<BorderJson>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ring: Option<f32>,
    #[serde(default = "one")]
    pub opacity: f32,
}

/// `ellipse`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct EllipseJson {
    pub cx: f32,
    pub cy: f32,
    pub rx: f32,
    pub ry: f32,
    #[serde(default = "transparent")]
    pub fill: FillJson,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub border: Option<BorderJson>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ring: Option<f32>,
    #[serde(default = "one")]
    pub opacity: f32,
}

/// `text`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct TextJson {
    pub x: f32,
    pub y: f32,
    pub size: f32,
    #[serde(default = "black")]
    pub color: Color,
    pub font: String,
    pub text: String,
    #[serde(default = "one")]
    pub opacity: f32,
}

/// `paragraph`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ParagraphJson {
    pub x: f32,
    pub y: f32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<f32>,
    pub size: f32,
    #[serde(default = "line_height")]
    pub line_height: f32,
    #[serde(default = "black")]
    pub color: Color,
    pub font: String,
    /// More fonts the scene falls back to, in order (added to the scene as they appear).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallback: Vec<String>,
    #[serde(default)]
    pub align: scene::Align,
    #[serde(default)]
    pub direction: scene::Direction,
    pub text: String,
    #[serde(default = "one")]
    pub opacity: f32,
}

fn line_height() -> f32 {
    1.25
}

/// `image`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ImageJson {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
    pub path: String,
    #[serde(default)]
    pub filter: FilterJson,
    #[serde(default = "white")]
    pub tint: Color,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<[u32; 4]>,
    #[serde(default = "one")]
    pub opacity: f32,
}

/// Image sampling as written.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum FilterJson {
    Nearest,
    #[default]
    Bilinear,
}

/// `shadow`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ShadowJson {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
    #[serde(default)]
    pub radius: Radius,
    #[serde(default)]
    pub offset: [f32; 2],
    #[serde(default)]
    pub blur: f32,
    #[serde(default)]
    pub spread: f32,
    pub color: Color,
    #[serde(default = "one")]
    pub opacity: f32,
}

/// `push_clip`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ClipJson {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
    #[serde(default)]
    pub radius: Radius,
}

/// `pop_clip`: nothing.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PopJson {}

/// One item: an object with one key, its kind.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum Item {
    Rect(RectJson),
    Circle(CircleJson),
    Ellipse(EllipseJson),
    Text(TextJson),
    Paragraph(ParagraphJson),
    Image(ImageJson),
    Shadow(ShadowJson),
    PushClip(ClipJson),
    PopClip(PopJson),
}

/// The item kinds, as the format spells them.
pub const KINDS: [&str; 9] = [
    "rect",
    "circle",
    "ellipse",
    "text",
    "paragraph",
    "image",
    "shadow",
    "push_clip",
    "pop_clip",
];

impl Item {
    /// Its kind as written.
    pub fn kind(&self) -> &'static str {
        match self {
            Item::Rect(_) => "rect",
            Item::Circle(_) => "circle",
            Item::Ellipse(_) => "ellipse",
            Item::Text(_) => "text",
            Item::Paragraph(_) => "paragraph",
            Item::Image(_) => "image",
            Item::Shadow(_) => "shadow",
            Item::PushClip(_) => "push_clip",
            Item::PopClip(_) => "pop_clip",
        }
    }
}

/// The top level, items still unparsed (so that an item's error can name it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    width: u32,
    height: u32,
    #[serde(default)]
    background: Color,
    #[serde(default)]
    system_fonts: bool,
    items: Vec<serde_json::Value>,
}

fn item_error(index: usize, kind: &str, message: impl std::fmt::Display) -> UiError {
    UiError::Item {
        index,
        kind: kind.to_string(),
        message: message.to_string(),
    }
}

/// Parse a scene's JSON text (`name` names it in errors).
pub fn parse(name: &str, text: &str) -> Result<SceneFile> {
    // A UTF-8 byte-order mark (some editors write one) is not JSON; it is skipped.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let raw: RawFile = serde_json::from_str(text).map_err(|e| {
        let hint = if text.contains("NaN") || text.contains("Infinity") {
            " (JSON has no NaN or Infinity: give finite numbers)"
        } else {
            ""
        };
        UiError::Scene {
            path: name.to_string(),
            message: format!("{e}{hint}"),
        }
    })?;
    let mut items = Vec::with_capacity(raw.items.len());
    for (index, v) in raw.items.into_iter().enumerate() {
        let kind = match v.as_object() {
            Some(o) if o.len() == 1 => o.keys().next().cloned().unwrap_or_default(),
            _ => {
                return Err(item_error(
                    index,
                    "?",
                    format!(
                        "an item is an object with one key, its kind ({}); found {v}",
                        KINDS.join(", ")
                    ),
                ));
            }
        };
        if !KINDS.contains(&kind.as_str()) {
            return Err(item_error(
                index,
                &kind,
                format!("unknown item kind; the kinds are {}", KINDS.join(", ")),
            ));
        }
        let item: Item = serde_json::from_value(v).map_err(|e| item_error(index, &kind, e))?;
        items.push(item);
    }
    Ok(SceneFile {
        width: raw.width,
        height: raw.height,
        background: raw.background,
        system_fonts: raw.system_fonts,
        items,
    })
}

/// Read and parse a scene file.
pub fn read(path: &Path) -> Result<SceneFile> {
    let text = std::fs::read_to_string(path).map_err(|e| UiError::File {
        path: path.display().to_string(),
        message: format!("cannot read the scene: {e}"),
    })?;
    parse(&path.display().to_string(), &text)
}

fn fill(f: &FillJson) -> scene::Fill {
    match f {
        FillJson::Solid(c) => scene::Fill::Solid(*c),
        FillJson::Gradient { linear } => scene::Fill::Linear(scene::LinearGradient {
            start: linear.start,
            end: linear.end,
            stops: linear.stops.clone(),
        }),
    }
}

fn border(b: Option<BorderJson>) -> Option<scene::Border> {
    b.map(|b| scene::Border {
        width: b.width,
        color: b.color,
    })
}

/// Which files a scene may name for its fonts and images.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AssetAccess {
    /// Only files in the scene's folder or below it, after `..` and symbolic links are
    /// resolved: a scene from an untrusted source cannot make the renderer read other files.
    /// The default.
    #[default]
    SceneFolder,
    /// Any path, absolute or relative to the scene's folder.
    Anywhere,
}

/// Fonts and images loaded for a scene, by their real path (each file loaded once, however
/// the scene spells it).
#[derive(Default)]
struct Loaded {
    fonts: HashMap<PathBuf, FontId>,
    images: HashMap<PathBuf, ImageId>,
    access: AssetAccess,
}

fn resolve(dir: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        dir.join(p)
    }
}

/// The real path of the `what` (font, image) a scene names `name`, relative to `dir`; under
/// [`AssetAccess::SceneFolder`], an error unless it lies in `dir` or below.
fn asset(dir: &Path, name: &str, what: &str, access: AssetAccess) -> Result<PathBuf> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let path = resolve(dir, name);
    let real = path.canonicalize().map_err(|e| {
        UiError::Invalid(format!(
            "{what} '{name}' ({}): cannot read it: {e}",
            path.display()
        ))
    })?;
    if access == AssetAccess::SceneFolder {
        let root = dir
            .canonicalize()
            .map_err(|e| UiError::Invalid(format!("the scene's folder {}: {e}", dir.display())))?;
        if !real.starts_with(&root) {
            return Err(UiError::Invalid(format!(
                "{what} '{name}' is {}, outside the scene's folder {}: a scene may name only \
                 files in its folder or below (to allow any path, use AssetAccess::Anywhere, or \
                 `wavekit ui render --allow-any-path` for a scene you trust)",
                real.display(),
                root.display()
            )));
        }
    }
    Ok(real)
}

impl SceneFile {
    /// Build the scene, loading fonts and images relative to `dir` and only from it or below
    /// ([`AssetAccess::SceneFolder`]); `size` replaces the viewport's (items keep their
    /// coordinates).
    pub fn build(&self, dir: &Path, size: Option<(u32, u32)>) -> Result<Scene> {
        self.build_with(dir, size, AssetAccess::SceneFolder)
    }

    /// As [`SceneFile::build`], with the files the scene may name given by `access`.
    pub fn build_with(
        &self,
        dir: &Path,
        size: Option<(u32, u32)>,
        access: AssetAccess,
    ) -> Result<Scene> {
        let (w, h) = size.unwrap_or((self.width, self.height));
        let mut scene = Scene::new(w, h)?;
        self.build_into_with(&mut scene, dir, access)?;
        Ok(scene)
    }

    /// Encode the items into `scene` (cleared first by the caller if it should be), fonts
    /// and images from `dir` or below.
    pub fn build_into(&self, scene: &mut Scene, dir: &Path) -> Result<()> {
        self.build_into_with(scene, dir, AssetAccess::SceneFolder)
    }

    /// As [`SceneFile::build_into`], with the files the scene may name given by `access`.
    pub fn build_into_with(
        &self,
        scene: &mut Scene,
        dir: &Path,
        access: AssetAccess,
    ) -> Result<()> {
        scene.set_background(self.background);
        if self.system_fonts {
            scene.use_system_fonts(true);
        }
        let mut loaded = Loaded {
            access,
            ..Loaded::default()
        };
        for (index, item) in self.items.iter().enumerate() {
            let kind = item.kind();
            let err = |e: UiError| match e {
                UiError::Item { .. } => e,
                e => item_error(index, kind, e),
            };
            self.encode(scene, dir, &mut loaded, item).map_err(err)?;
        }
        scene.check()
    }

    fn encode(
        &self,
        scene: &mut Scene,
        dir: &Path,
        loaded: &mut Loaded,
        item: &Item,
    ) -> Result<()> {
        match item {
            Item::Rect(r) => scene.rect(&scene::Rect {
                x: r.x,
                y: r.y,
                w: r.w,
                h: r.h,
                radius: r.radius.corners(),
                fill: fill(&r.fill),
                border: border(r.border),
                ring: r.ring,
                opacity: r.opacity,
            }),
            Item::Circle(c) => scene.ellipse(&scene::Ellipse {
                cx: c.cx,
                cy: c.cy,
                rx: c.r,
                ry: c.r,
                fill: fill(&c.fill),
                border: border(c.border),
                ring: c.ring,
                opacity: c.opacity,
            }),
            Item::Ellipse(e) => scene.ellipse(&scene::Ellipse {
                cx: e.cx,
                cy: e.cy,
                rx: e.rx,
                ry: e.ry,
                fill: fill(&e.fill),
                border: border(e.border),
                ring: e.ring,
                opacity: e.opacity,
            }),
            Item::Text(t) => {
                let font = font(scene, dir, loaded, &t.font)?;
                scene
                    .text(&scene::Text {
                        x: t.x,
                        y: t.y,
                        size: t.size,
                        color: t.color,
                        font,
                        text: t.text.clone(),
                        opacity: t.opacity,
                    })
                    .map(|_| ())
            }
            Item::Paragraph(p) => {
                let first = font(scene, dir, loaded, &p.font)?;
                for f in &p.fallback {
                    font(scene, dir, loaded, f)?;
                }
                let mut para = scene::Paragraph::new(p.text.clone(), first, p.size, p.x, p.y);
                para.width = p.width;
                para.line_height = p.line_height;
                para.color = p.color;
                para.opacity = p.opacity;
                para.align = p.align;
                para.direction = p.direction;
                scene.paragraph(&para).map(|_| ())
            }
            Item::Image(im) => {
                let path = asset(dir, &im.path, "image", loaded.access)?;
                let id = match loaded.images.get(&path) {
                    Some(i) => *i,
                    None => {
                        let img = image::open(&path).map_err(|e| {
                            UiError::Invalid(format!(
                                "image '{}' ({}): cannot read it: {e}",
                                im.path,
                                path.display()
                            ))
                        })?;
                        let id = scene.add_image(&img.to_rgba8())?;
                        loaded.images.insert(path, id);
                        id
                    }
                };
                scene.image(&scene::Image {
                    x: im.x,
                    y: im.y,
                    w: im.w,
                    h: im.h,
                    image: id,
                    src: im.src,
                    filter: match im.filter {
                        FilterJson::Nearest => scene::Filter::Nearest,
                        FilterJson::Bilinear => scene::Filter::Bilinear,
                    },
                    tint: im.tint,
                    opacity: im.opacity,
                })
            }
            Item::Shadow(s) => scene.shadow(&scene::BoxShadow {
                x: s.x,
                y: s.y,
                w: s.w,
                h: s.h,
                radius: s.radius.corners(),
                offset: s.offset,
                blur: s.blur,
                spread: s.spread,
                color: s.color,
                opacity: s.opacity,
            }),
            Item::PushClip(c) => scene.push_clip(&scene::Clip {
                x: c.x,
                y: c.y,
                w: c.w,
                h: c.h,
                radius: c.radius.corners(),
            }),
            Item::PopClip(_) => scene.pop_clip(),
        }
    }
}

/// The scene's font named `name` (a path, [`EMBEDDED_FONT`], or [`SAMPLE_FONTS`]: the
/// first of them, the others added for fallback), added once however often it is named.
fn font(scene: &mut Scene, dir: &Path, loaded: &mut Loaded, name: &str) -> Result<FontId> {
    let key = if name == EMBEDDED_FONT || name == SAMPLE_FONTS {
        PathBuf::from(name)
    } else {
        asset(dir, name, "font", loaded.access)?
    };
    if let Some(f) = loaded.fonts.get(&key) {
        return Ok(*f);
    }
    let f = if name == EMBEDDED_FONT {
        scene.add_font(Font::dejavu_sans())
    } else if name == SAMPLE_FONTS {
        let ids: Vec<FontId> = Font::noto_samples()
            .into_iter()
            .map(|f| scene.add_font(f))
            .collect();
        ids[0]
    } else {
        scene.add_font(
            Font::from_file(&key).map_err(|e| UiError::Invalid(format!("font '{name}': {e}")))?,
        )
    };
    loaded.fonts.insert(key, f);
    Ok(f)
}

/// Read a scene file and build it (fonts and images relative to the file, from its folder
/// or below).
pub fn load(path: &Path, size: Option<(u32, u32)>) -> Result<Scene> {
    load_with(path, size, AssetAccess::SceneFolder)
}

/// As [`load`], with the files the scene may name given by `access`.
pub fn load_with(path: &Path, size: Option<(u32, u32)>, access: AssetAccess) -> Result<Scene> {
    let file = read(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    file.build_with(dir, size, access)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        match parse("t.json", text).and_then(|f| f.build(Path::new("/nonexistent"), None)) {
            Ok(_) => panic!("{text} parsed"),
            Err(e) => e.to_string(),
        }
    }

    const HEAD: &str = r#"{"width": 50, "height": 40, "items": ["#;

    /// Fuzzing (issue 32): any bytes as a scene file are parsed, built and, when small,
    /// rendered by the CPU reference without a panic: the corpus (`fuzz/corpus/ui_scene`: every
    /// item kind, the colours, the BOM, far text, huge shapes, unbalanced clips, a path out of
    /// the folder) and mutations of it.
    #[test]
    fn fuzz_scene_files() {
        let dir = wavekit_harness::fuzz::corpus_dir("ui_scene");
        wavekit_harness::fuzz::fuzz("ui_scene", 20_000, |b| {
            let Ok(text) = std::str::from_utf8(b) else {
                return false;
            };
            let Ok(scene) = parse("fuzz.json", text).and_then(|f| f.build(&dir, None)) else {
                return false;
            };
            if u64::from(scene.width()) * u64::from(scene.height()) <= 64 * 64 && scene.len() <= 500
            {
                crate::cpu::render(&scene);
            }
            true
        });
    }

    /// Paragraphs: every field read, defaults filled, the sample fonts added once however
    /// often named (their other fonts for fallback), wrong values named.
    #[test]
    fn paragraphs_parse_and_build() {
        let text = r#"{"width": 200, "height": 100, "items": [
          {"paragraph": {"x": 4, "y": 5, "width": 150, "size": 14, "line_height": 1.5,
            "font": "embedded:noto-samples", "text": "Hello مرحبا 你好 👍🏽", "align": "center",
            "direction": "rtl", "color": [10, 20, 30, 255], "opacity": 0.5}},
          {"paragraph": {"x": 4, "y": 50, "size": 12, "font": "embedded:dejavu-sans",
            "fallback": ["embedded:noto-samples"], "text": "שלום"}}
        ]}"#;
        let f = parse("t.json", text).unwrap();
        let Item::Paragraph(p) = &f.items[0] else {
            panic!("{:?}", f.items[0]);
        };
        assert_eq!(
            (p.align, p.direction, p.width),
            (scene::Align::Center, scene::Direction::Rtl, Some(150.0))
        );
        let Item::Paragraph(q) = &f.items[1] else {
            panic!("{:?}", f.items[1]);
        };
        assert_eq!(
            (q.align, q.direction, q.line_height, q.color),
            (
                scene::Align::Start,
                scene::Direction::Auto,
                1.25,
                [0, 0, 0, 255]
            )
        );
        let scene = f.build(Path::new("."), None).unwrap();
        assert!(scene.warnings().is_empty(), "{:?}", scene.warnings());
        // Noto Sans' text, Arabic, Chinese, an emoji (colour: in the image atlas) and Hebrew.
        assert!(scene.len() > 15, "{} items", scene.len());
        assert_eq!(scene.image_count(), 1);
        let again = parse("t.json", &serde_json::to_string(&f).unwrap()).unwrap();
        assert_eq!(again.items, f.items);
        let e = err(&format!(
            r#"{HEAD}{{"paragraph": {{"x": 0, "y": 0, "size": 9, "font": "embedded:dejavu-sans", "text": "a", "align": "middle"}}}}]}}"#
        ));
        assert!(
            e.contains("item 0 (paragraph)") && e.contains("middle") && e.contains("justify"),
            "{e}"
        );
        let e = err(&format!(
            r#"{HEAD}{{"paragraph": {{"x": 0, "y": 0, "size": 9, "font": "embedded:dejavu-sans", "text": "a", "align": "center"}}}}]}}"#
        ));
        assert!(e.contains("give the paragraph a width"), "{e}");
        let e = err(&format!(
            r#"{HEAD}{{"paragraph": {{"x": 0, "y": 0, "size": 9, "font": "missing.ttf", "text": "a"}}}}]}}"#
        ));
        assert!(e.contains("missing.ttf"), "{e}");
    }

    #[test]
    fn the_issue_example_parses() {
        let text = r#"{"width": 320, "height": 200, "background": [255, 255, 255, 255],
         "items": [
           {"rect": {"x": 10, "y": 10, "w": 120, "h": 40, "radius": [8, 8, 8, 8], "fill": [40, 90, 200, 255],
                     "border": {"width": 2, "color": [0, 0, 0, 255]}}},
           {"circle": {"cx": 200, "cy": 60, "r": 20, "fill": [220, 40, 40, 255]}},
           {"text": {"x": 20, "y": 36, "size": 14, "color": [255, 255, 255, 255], "font": "DejaVuSans.ttf", "text": "OK"}},
           {"image": {"x": 150, "y": 100, "w": 64, "h": 64, "path": "icon.png", "filter": "bilinear"}},
           {"push_clip": {"x": 0, "y": 90, "w": 140, "h": 100, "radius": 6}},
           {"rect": {"x": 5, "y": 95, "w": 300, "h": 20, "fill": [0, 160, 0, 128]}},
           {"pop_clip": {}}
         ]}"#;
        let f = parse("t.json", text).unwrap();
        assert_eq!(f.items.len(), 7);
        assert_eq!(f.items[4].kind(), "push_clip");
        // Round trip through serde.
        let again = parse("t.json", &serde_json::to_string(&f).unwrap()).unwrap();
        assert_eq!(again.items, f.items);
    }

    #[test]
    fn errors_name_the_item_and_what_is_wrong() {
        let e = err(&format!(
            r#"{HEAD}{{"rect": {{"x": 1, "y": 1, "w": 2, "h": 2}}}}, {{"blob": {{}}}}]}}"#
        ));
        assert!(e.contains("item 1 (blob): unknown item kind"), "{e}");
        let e = err(&format!(
            r#"{HEAD}{{"rect": {{"x": 1, "y": 1, "w": -2, "h": 2}}}}]}}"#
        ));
        assert!(e.contains("item 0 (rect): width is -2"), "{e}");
        let e = err(&format!(
            r#"{HEAD}{{"rect": {{"x": 1, "y": 1, "w": 2, "hh": 2}}}}]}}"#
        ));
        assert!(e.contains("item 0 (rect): unknown field `hh`"), "{e}");
        let e = err(&format!(r#"{HEAD}{{"pop_clip": {{}}}}]}}"#));
        assert!(
            e.contains("item 0 (pop_clip): pop_clip without a push_clip"),
            "{e}"
        );
        let e = err(&format!(
            r#"{HEAD}{{"push_clip": {{"x": 0, "y": 0, "w": 5, "h": 5}}}}]}}"#
        ));
        assert!(e.contains("push_clip without their pop_clip"), "{e}");
        let e = err(&format!(
            r#"{HEAD}{{"circle": {{"cx": 1, "cy": 1, "r": 2}}}}, {{"text": {{"x": 1, "y": 1, "size": 9, "font": "nope.ttf", "text": "a"}}}}]}}"#
        ));
        assert!(
            e.contains("item 1 (text): font 'nope.ttf'") && e.contains("/nonexistent/nope.ttf"),
            "{e}"
        );
        let e = err(&format!(
            r#"{HEAD}{{"image": {{"x": 1, "y": 1, "w": 9, "h": 9, "path": "i.png"}}}}]}}"#
        ));
        assert!(
            e.contains("item 0 (image): image 'i.png' (/nonexistent/i.png)"),
            "{e}"
        );
        let e = err(&format!(
            r#"{HEAD}{{"rect": {{"x": NaN, "y": 1, "w": 2, "h": 2}}}}]}}"#
        ));
        assert!(
            e.contains("t.json") && e.contains("line 1") && e.contains("no NaN"),
            "{e}"
        );
        let e = err(&format!(
            r#"{HEAD}{{"rect": {{"x": 1e999, "y": 1, "w": 2, "h": 2}}}}]}}"#
        ));
        assert!(e.contains("item 0 (rect)") || e.contains("t.json"), "{e}");
        let e = err(&format!(r#"{HEAD}[1, 2]]}}"#));
        assert!(
            e.contains("item 0 (?): an item is an object with one key"),
            "{e}"
        );
        let e = err(r#"{"width": 0, "height": 4, "items": []}"#);
        assert!(e.contains("a viewport of 0 x 4"), "{e}");
        let e = err(&format!(
            r#"{HEAD}{{"rect": {{"x": 1, "y": 1, "w": 2, "h": 2, "opacity": 3}}}}]}}"#
        ));
        assert!(e.contains("item 0 (rect): opacity is 3"), "{e}");
        // Fills and radii say what they found and what they take (issue 32: serde's "data did
        // not match any variant of untagged enum").
        for (item, needle) in [
            (
                r#""fill": [300, 0, 0, 255]"#,
                "fill [300,0,0,255]: a colour is [r, g, b, a], four integers from 0 to 255",
            ),
            (
                r#""fill": [30, 0, 0]"#,
                "fill [30,0,0]: a colour is [r, g, b, a]",
            ),
            (
                r#""fill": "red""#,
                "fill \"red\": give a colour [r, g, b, a] or {\"linear\"",
            ),
            (
                r#""fill": {"linear": {"start": [0, 0], "stops": []}}"#,
                "linear gradient: missing field `end`",
            ),
            (
                r#""radius": [1, 2, 3]"#,
                "radius [1,2,3]: give one number, or four [top-left",
            ),
            (r#""radius": "big""#, "radius \"big\": give one number"),
        ] {
            let e = err(&format!(
                r#"{HEAD}{{"rect": {{"x": 1, "y": 1, "w": 2, "h": 2, {item}}}}}]}}"#
            ));
            assert!(e.contains("item 0 (rect): "), "{item}: {e}");
            assert!(e.contains(needle), "{item}: {e}");
            assert!(!e.contains("did not match"), "{item}: {e}");
        }
        // Both forms of each still read.
        let f = parse(
            "t.json",
            &format!(
                r#"{HEAD}{{"rect": {{"x": 1, "y": 1, "w": 2, "h": 2, "radius": 2, "fill": [1, 2, 3, 4]}}}}, {{"rect": {{"x": 1, "y": 1, "w": 2, "h": 2, "radius": [1, 2, 3, 4.5], "fill": {{"linear": {{"start": [0, 0], "end": [1, 0], "stops": [[0, [0, 0, 0, 255]]]}}}}}}}}]}}"#
            ),
        )
        .unwrap();
        let back = serde_json::to_string(&f).unwrap();
        assert!(back.contains(r#""radius":2.0,"fill":[1,2,3,4]"#), "{back}");
        assert!(
            back.contains(r#""radius":[1.0,2.0,3.0,4.5],"fill":{"linear""#),
            "{back}"
        );
        // A UTF-8 byte-order mark is skipped, not "expected value at line 1 column 1".
        let bom = format!("\u{feff}{HEAD}{{\"pop_clip\": {{}}}}]}}");
        let e = err(&bom);
        assert!(e.contains("pop_clip without a push_clip"), "{e}");
        parse("t.json", &format!("\u{feff}{HEAD}]}}")).unwrap();
    }

    #[test]
    fn fonts_and_images_load_relative_to_the_scene() {
        let temp = tempfile::Builder::new()
            .prefix("wavekit-ui-json-")
            .tempdir()
            .unwrap();
        let dir = temp.path();
        std::fs::write(dir.join("f.ttf"), dejavu::sans::regular()).unwrap();
        image::RgbaImage::from_pixel(3, 3, image::Rgba([9, 8, 7, 255]))
            .save(dir.join("i.png"))
            .unwrap();
        let text = format!(
            r#"{HEAD}{{"text": {{"x": 1, "y": 20, "size": 12, "font": "f.ttf", "text": "ab"}}}},
            {{"text": {{"x": 1, "y": 30, "size": 12, "font": "f.ttf", "text": "b", "color": [1, 2, 3, 255]}}}},
            {{"text": {{"x": 1, "y": 30, "size": 12, "font": "{EMBEDDED_FONT}", "text": "c"}}}},
            {{"image": {{"x": 1, "y": 1, "w": 9, "h": 9, "path": "i.png", "filter": "nearest"}}}}]}}"#
        );
        std::fs::write(dir.join("s.json"), text).unwrap();
        let s = load(&dir.join("s.json"), Some((64, 48))).unwrap();
        assert_eq!((s.width(), s.height()), (64, 48));
        assert_eq!(s.len(), 5);
        // "b" at 12 px rasterized once for both runs at the same subpixel offset.
        assert!(s.cached_glyphs() <= 4);
    }

    /// A scene names fonts and images in its folder or below only, unless the caller allows
    /// any path: `..`, an absolute path and a symbolic link out are refused, naming the item
    /// and the folder. One file spelled three ways is loaded once.
    #[test]
    fn scenes_read_only_their_own_folder_unless_allowed() {
        let temp = tempfile::Builder::new()
            .prefix("wavekit-ui-confine-")
            .tempdir()
            .unwrap();
        let root = temp.path();
        let dir = root.join("scene");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let secret = root.join("secret.png");
        let png = image::RgbaImage::from_pixel(2, 2, image::Rgba([1, 2, 3, 255]));
        png.save(&secret).unwrap();
        png.save(dir.join("sub/ok.png")).unwrap();
        #[cfg(unix)]
        {
            let _ = std::fs::remove_file(dir.join("link.png"));
            std::os::unix::fs::symlink(&secret, dir.join("link.png")).unwrap();
        }
        let scene = |path: &str| {
            let text = format!(
                r#"{HEAD}{{"image": {{"x": 1, "y": 1, "w": 2, "h": 2, "path": "{path}"}}}}]}}"#
            );
            let f = dir.join("s.json");
            std::fs::write(&f, text).unwrap();
            f
        };
        let mut outside = vec!["../secret.png".to_string(), secret.display().to_string()];
        if cfg!(unix) {
            outside.push("link.png".into());
        }
        for path in &outside {
            let f = scene(path);
            let e = load(&f, None).unwrap_err().to_string();
            assert!(
                e.contains("item 0 (image)") && e.contains("outside the scene's folder"),
                "{path}: {e}"
            );
            let s = load_with(&f, None, AssetAccess::Anywhere).unwrap();
            assert_eq!(s.len(), 1, "{path}");
        }
        let f = scene("sub/../sub/ok.png");
        assert_eq!(load(&f, None).unwrap().len(), 1);
        // Three spellings of one image: one image in the scene.
        let text = format!(
            r#"{HEAD}{{"image": {{"x": 1, "y": 1, "w": 2, "h": 2, "path": "sub/ok.png"}}}},
            {{"image": {{"x": 1, "y": 1, "w": 2, "h": 2, "path": "./sub/ok.png"}}}},
            {{"image": {{"x": 1, "y": 1, "w": 2, "h": 2, "path": "sub/../sub/ok.png"}}}}]}}"#
        );
        std::fs::write(dir.join("three.json"), text).unwrap();
        let s = load(&dir.join("three.json"), None).unwrap();
        assert_eq!((s.len(), s.image_count()), (3, 1));
    }
}
