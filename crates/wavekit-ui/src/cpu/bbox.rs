//! `gpu/bbox.wgsl` (the first step of the `bin_count` kernel) on the CPU: every item's pixel
//! box and opaque box, by [`crate::records::item_bounds`], the arithmetic both sides share.

use crate::records::{self, ITEM_WORDS, PixelBox};
use crate::scene::Scene;

/// Every item's pixel box and opaque box (`bbox.wgsl`).
pub fn bounds(scene: &Scene) -> Vec<(PixelBox, PixelBox)> {
    scene
        .items
        .chunks(ITEM_WORDS)
        .map(|rec| records::item_bounds(rec, &scene.clips, scene.width, scene.height))
        .collect()
}
