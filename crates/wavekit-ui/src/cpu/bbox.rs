//! The `bbox` kernel (`gpu/bbox.wgsl`) on the CPU: every item's pixel box and opaque box, by
//! [`crate::records::item_bounds`], the arithmetic both sides share.

use crate::records::{self, ITEM_WORDS, PixelBox};
use crate::scene::Scene;

/// Every item's pixel box and opaque box (the `bbox` kernel).
pub fn bounds(scene: &Scene) -> Vec<(PixelBox, PixelBox)> {
    scene
        .items
        .chunks(ITEM_WORDS)
        .map(|rec| records::item_bounds(rec, &scene.clips, scene.width, scene.height))
        .collect()
}
