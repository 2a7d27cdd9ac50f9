//! The demo panel: a small settings card — a title, buttons with text on them, a slider with
//! a round knob on its track, a checkbox, an image in a rounded clip, a clipped scrolling list,
//! a text field of several scripts and an emoji (a shaped paragraph), and a tooltip over the
//! list — every item kind, drawn in an order where any mistake shows
//! (text over buttons, the knob over the track's fill, the tooltip's shadow over the list).

use crate::atlas::ImageId;
use crate::error::Result;
use crate::scene::{
    BoxShadow, Clip, Color, Ellipse, Fill, FontId, Image, LinearGradient, Paragraph, Rect, Scene,
    Text,
};
use crate::text::Font;

/// The panel's size.
pub const SIZE: (u32, u32) = (560, 360);

/// The panel's resources in a scene: its font and its image.
#[derive(Clone, Copy, Debug)]
pub struct Panel {
    font: FontId,
    /// Noto Sans, the other sample fonts after it for fallback.
    sample: FontId,
    image: ImageId,
}

/// The text field's text: a greeting in several scripts, right-to-left ones among them, and an
/// emoji with a skin tone (the sample fonts cover these characters).
pub const FIELD_TEXT: &str = "Hello, world! مرحبا שלום नमस्ते สวัสดี 你好世界 👍🏽";

/// The demo image: a procedural picture (rings of colour over a gradient), no asset.
pub fn picture(w: u32, h: u32) -> image::RgbaImage {
    image::RgbaImage::from_fn(w, h, |x, y| {
        let (u, v) = (x as f32 / w as f32 - 0.5, y as f32 / h as f32 - 0.5);
        let r = (u * u + v * v).sqrt();
        let ring = ((r * 28.0).sin() * 0.5 + 0.5) * (1.0 - r * 1.4).max(0.0);
        let c = |a: f32| (a.clamp(0.0, 1.0) * 255.0) as u8;
        image::Rgba([
            c(0.15 + 0.8 * ring + 0.3 * u),
            c(0.35 + 0.5 * (1.0 - ring) * (0.5 - v)),
            c(0.55 + 0.4 * ring - 0.3 * u),
            255,
        ])
    })
}

const INK: Color = [30, 34, 44, 255];
const MUTED: Color = [110, 116, 130, 255];
const ACCENT: Color = [52, 110, 235, 255];
const WHITE: Color = [255, 255, 255, 255];

impl Panel {
    /// Add the panel's font and image to `scene`.
    pub fn new(scene: &mut Scene) -> Result<Panel> {
        let font = scene.add_font(Font::dejavu_sans());
        let samples: Vec<FontId> = Font::noto_samples()
            .into_iter()
            .map(|f| scene.add_font(f))
            .collect();
        Ok(Panel {
            font,
            sample: samples[0],
            image: scene.add_image(&picture(96, 96))?,
        })
    }

    fn text(&self, s: &mut Scene, x: f32, y: f32, size: f32, color: Color, t: &str) -> Result<f32> {
        s.text(&Text {
            x,
            y,
            size,
            color,
            font: self.font,
            text: t.into(),
            opacity: 1.0,
        })
    }

    fn button(&self, s: &mut Scene, x: f32, label: &str, primary: bool) -> Result<()> {
        let (y, w, h) = (300.0, 112.0, 36.0);
        if primary {
            s.shadow(&BoxShadow {
                x,
                y,
                w,
                h,
                radius: [8.0; 4],
                offset: [0.0, 3.0],
                blur: 10.0,
                spread: 0.0,
                color: [52, 110, 235, 110],
                opacity: 1.0,
            })?;
            let mut r = Rect::new(
                x,
                y,
                w,
                h,
                Fill::Linear(LinearGradient {
                    start: [x, y],
                    end: [x, y + h],
                    stops: vec![(0.0, [84, 140, 255, 255]), (1.0, [40, 92, 220, 255])],
                }),
            );
            r.radius = [8.0; 4];
            s.rect(&r)?;
        } else {
            let mut r = Rect::new(x, y, w, h, WHITE).radius(8.0);
            r.border = Some(crate::scene::Border {
                width: 1.5,
                color: [190, 196, 210, 255],
            });
            s.rect(&r)?;
        }
        let size = 15.0;
        let tw = s.font(self.font).map_or(0.0, |f| f.measure(label, size));
        let color = if primary { WHITE } else { INK };
        self.text(s, x + (w - tw) * 0.5, y + 23.5, size, color, label)?;
        Ok(())
    }

    /// Draw the panel into `scene` (cleared to the panel's size first): the slider's knob at
    /// `knob` (0 to 1 along its track), the list scrolled down by `scroll` rows.
    pub fn draw(&self, s: &mut Scene, knob: f32, scroll: f32) -> Result<()> {
        s.clear(SIZE.0, SIZE.1)?;
        s.set_background([226, 230, 238, 255]);
        // The card and its shadow, per-corner radii.
        let radius = [18.0, 18.0, 18.0, 18.0];
        s.shadow(&BoxShadow {
            x: 16.0,
            y: 14.0,
            w: 528.0,
            h: 332.0,
            radius,
            offset: [0.0, 6.0],
            blur: 24.0,
            spread: 0.0,
            color: [20, 30, 60, 90],
            opacity: 1.0,
        })?;
        let mut card = Rect::new(16.0, 14.0, 528.0, 332.0, [250, 251, 253, 255]);
        card.radius = radius;
        s.rect(&card)?;
        self.text(s, 40.0, 52.0, 22.0, INK, "Display settings")?;
        self.text(
            s,
            40.0,
            74.0,
            13.0,
            MUTED,
            "Composited by compute shaders, in draw order.",
        )?;

        // Slider: track, filled part, knob (shadow, body, border), value.
        let (tx, ty, tw) = (40.0, 112.0, 236.0);
        let k = knob.clamp(0.0, 1.0);
        self.text(s, tx, ty - 12.0, 13.0, INK, "Brightness")?;
        s.rect(&Rect::new(tx, ty, tw, 6.0, [214, 219, 230, 255]).radius(3.0))?;
        let mut fill = Rect::new(
            tx,
            ty,
            tw * k,
            6.0,
            Fill::Linear(LinearGradient {
                start: [tx, 0.0],
                end: [tx + tw, 0.0],
                stops: vec![
                    (0.0, [80, 200, 255, 255]),
                    (0.5, ACCENT),
                    (1.0, [150, 70, 240, 255]),
                ],
            }),
        );
        fill.radius = [3.0; 4];
        s.rect(&fill)?;
        let kx = tx + tw * k;
        s.shadow(&BoxShadow {
            x: kx - 11.0,
            y: ty + 3.0 - 11.0,
            w: 22.0,
            h: 22.0,
            radius: [11.0; 4],
            offset: [0.0, 2.0],
            blur: 6.0,
            spread: 0.0,
            color: [0, 0, 0, 90],
            opacity: 1.0,
        })?;
        let mut knob_body = Ellipse::circle(kx, ty + 3.0, 11.0, WHITE);
        knob_body.border = Some(crate::scene::Border {
            width: 2.0,
            color: ACCENT,
        });
        s.ellipse(&knob_body)?;
        self.text(
            s,
            tx + tw + 16.0,
            ty + 8.0,
            14.0,
            INK,
            &format!("{:.0} %", k * 100.0),
        )?;

        // Checkbox, checked, with its label.
        let (cx, cy) = (40.0, 148.0);
        s.rect(&Rect::new(cx, cy, 20.0, 20.0, ACCENT).radius(5.0))?;
        self.text(s, cx + 3.5, cy + 16.0, 15.0, WHITE, "\u{2713}")?;
        self.text(
            s,
            cx + 30.0,
            cy + 15.0,
            14.0,
            INK,
            "Smooth edges (AV, Wa, To)",
        )?;
        // A ring and an ellipse: a radio button and a badge.
        let mut radio = Ellipse::circle(cx + 10.0, cy + 44.0, 10.0, ACCENT);
        radio.ring = Some(2.0);
        s.ellipse(&radio)?;
        s.ellipse(&Ellipse::circle(cx + 10.0, cy + 44.0, 5.0, ACCENT))?;
        self.text(s, cx + 30.0, cy + 49.0, 14.0, INK, "High contrast")?;
        let mut badge = Ellipse::circle(cx + 176.0, cy + 44.0, 0.0, [235, 80, 90, 230]);
        badge.rx = 22.0;
        badge.ry = 11.0;
        s.ellipse(&badge)?;
        self.text(s, cx + 163.0, cy + 49.0, 12.0, WHITE, "new")?;

        // The image in a rounded clip, with a translucent caption over it.
        let (ix, iy) = (40.0, 216.0);
        s.push_clip(&Clip {
            x: ix,
            y: iy,
            w: 72.0,
            h: 72.0,
            radius: [14.0, 4.0, 14.0, 4.0],
        })?;
        s.image(&Image {
            x: ix,
            y: iy,
            w: 72.0,
            h: 72.0,
            image: self.image,
            src: None,
            filter: crate::scene::Filter::Bilinear,
            tint: WHITE,
            opacity: 1.0,
        })?;
        s.rect(&Rect::new(ix, iy + 52.0, 72.0, 20.0, [0, 0, 0, 120]))?;
        self.text(s, ix + 8.0, iy + 66.0, 11.0, WHITE, "avatar")?;
        s.pop_clip()?;

        // A text field: a paragraph of several scripts wrapped to its width.
        let (fx, fy, fw, fh) = (126.0, 216.0, 164.0, 72.0);
        s.rect(
            &Rect::new(fx, fy, fw, fh, WHITE)
                .radius(8.0)
                .border(1.5, ACCENT),
        )?;
        let mut field = Paragraph::new(FIELD_TEXT, self.sample, 13.0, fx + 8.0, fy + 5.0);
        field.width = Some(fw - 16.0);
        field.line_height = 1.3;
        field.color = INK;
        s.paragraph(&field)?;

        // The clipped scrolling list, with a scrollbar.
        let (lx, ly, lw, lh) = (352.0, 96.0, 168.0, 178.0);
        s.rect(
            &Rect::new(lx, ly, lw, lh, WHITE)
                .radius(10.0)
                .border(1.0, [205, 210, 222, 255]),
        )?;
        s.push_clip(&Clip {
            x: lx + 1.0,
            y: ly + 1.0,
            w: lw - 2.0,
            h: lh - 2.0,
            radius: [9.0; 4],
        })?;
        let row = 30.0;
        let names = [
            "Brightness",
            "Contrast",
            "Gamma",
            "Hue",
            "Saturation",
            "Sharpness",
            "Temperature",
            "Tint",
            "Vibrance",
            "Vignette",
            "Warmth",
            "Zoom",
        ];
        for (i, name) in names.iter().enumerate() {
            let y = ly + 4.0 + i as f32 * row - scroll * row;
            if y > ly + lh || y + row < ly {
                continue;
            }
            let shade: Color = if i % 2 == 0 {
                [244, 246, 250, 255]
            } else {
                WHITE
            };
            s.rect(&Rect::new(lx + 4.0, y, lw - 18.0, row - 2.0, shade).radius(6.0))?;
            self.text(s, lx + 14.0, y + 19.0, 13.0, INK, name)?;
        }
        s.pop_clip()?;
        let track = lh - 16.0;
        let thumb = track * 5.5 / names.len() as f32;
        let pos =
            ly + 8.0 + (track - thumb) * (scroll / (names.len() as f32 - 5.5)).clamp(0.0, 1.0);
        s.rect(&Rect::new(lx + lw - 10.0, pos, 5.0, thumb, [150, 158, 175, 200]).radius(2.5))?;

        // A tooltip over the list: its shadow and body cover the rows beneath.
        let (ttx, tty) = (300.0, 232.0);
        s.shadow(&BoxShadow {
            x: ttx,
            y: tty,
            w: 150.0,
            h: 34.0,
            radius: [4.0, 12.0, 12.0, 12.0],
            offset: [0.0, 4.0],
            blur: 14.0,
            spread: 2.0,
            color: [0, 0, 0, 120],
            opacity: 1.0,
        })?;
        let mut tip = Rect::new(ttx, tty, 150.0, 34.0, [34, 38, 50, 235]);
        tip.radius = [4.0, 12.0, 12.0, 12.0];
        s.rect(&tip)?;
        self.text(
            s,
            ttx + 12.0,
            tty + 22.0,
            12.0,
            WHITE,
            "Drag the knob \u{2192}",
        )?;

        // Buttons with text on them.
        self.button(s, 296.0, "Cancel", false)?;
        self.button(s, 420.0, "Apply", true)?;
        s.check()
    }
}

/// The panel as a scene of its own.
pub fn panel(knob: f32, scroll: f32) -> Result<Scene> {
    let mut s = Scene::new(SIZE.0, SIZE.1)?;
    let p = Panel::new(&mut s)?;
    p.draw(&mut s, knob, scroll)?;
    Ok(s)
}
