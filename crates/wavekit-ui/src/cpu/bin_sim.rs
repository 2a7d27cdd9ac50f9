//! The binning kernels' (`gpu/bin_count.wgsl`, `gpu/bin_emit.wgsl`) index arithmetic simulated on the CPU at any subgroup width: the
//! counts of every (bin, chunk), and for every (bin, chunk) workgroup of `bin_emit` the
//! `wg_compact` slots as the GPU computes them (ballots per
//! subgroup and the carry across subgroups: `wavekit::sim::workgroup::wg_compact`), the counts laid
//! out bin-major, their exclusive scan, and the positions `bin_emit.wgsl` writes
//! (`offsets[bin * chunks + chunk] + slot`). The tests run it at widths 1 to 128 and compare
//! the lists with the reference's.

use wavekit::sim::workgroup::wg_compact;

use crate::cpu as reference;
use crate::records::{self, CHUNK};
use crate::scene::Scene;

/// The bin lists as `bin_count`, the scan and `bin_emit` build them with subgroups of `width`
/// lanes: (each bin's list, the total written).
pub fn bin_lists(scene: &Scene, width: usize) -> (Vec<Vec<u32>>, usize) {
    let rects: Vec<u32> = reference::bounds(scene)
        .iter()
        .map(|(outer, _)| records::bin_rect(*outer))
        .collect();
    let (bx, by) = reference::bins(scene.width(), scene.height());
    let bins = (bx * by) as usize;
    let n = rects.len();
    let chunks = n.div_ceil(CHUNK as usize);
    let wg = CHUNK as usize;
    let keep = |bin: usize, chunk: usize| -> Vec<bool> {
        (0..wg)
            .map(|local| {
                let i = chunk * wg + local;
                i < n && records::bin_rect_has(rects[i], bin as u32 % bx, bin as u32 / bx)
            })
            .collect()
    };
    // bin_count: counts[bin * chunks + chunk] = the chunk's items on the bin; one more cell, 0.
    let mut counts = vec![0u32; bins * chunks + 1];
    for bin in 0..bins {
        for chunk in 0..chunks {
            counts[bin * chunks + chunk] = keep(bin, chunk).iter().filter(|k| **k).count() as u32;
        }
    }
    // The exclusive scan.
    let mut offsets = vec![0u32; counts.len()];
    let mut run = 0;
    for (o, c) in offsets.iter_mut().zip(&counts) {
        *o = run;
        run += c;
    }
    let total = run as usize;
    // bin_emit: each survivor at offsets[bin * chunks + chunk] + its slot.
    let mut list = vec![u32::MAX; total];
    for bin in 0..bins {
        for chunk in 0..chunks {
            let k = keep(bin, chunk);
            let (slots, _) = wg_compact(&k, width);
            for local in 0..wg {
                if k[local] {
                    let pos = (offsets[bin * chunks + chunk] + slots[local]) as usize;
                    assert_eq!(
                        list[pos],
                        u32::MAX,
                        "width {width}: position {pos} written twice"
                    );
                    list[pos] = (chunk * wg + local) as u32;
                }
            }
        }
    }
    let lists = (0..bins)
        .map(|b| list[offsets[b * chunks] as usize..offsets[(b + 1) * chunks] as usize].to_vec())
        .collect();
    (lists, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Ellipse, Rect};

    #[test]
    fn bin_lists_are_in_draw_order_at_every_width() {
        let mut rng = fastrand::Rng::with_seed(3);
        let mut s = Scene::new(700, 530).unwrap();
        for i in 0..900 {
            let (x, y) = (rng.f32() * 760.0 - 30.0, rng.f32() * 580.0 - 30.0);
            if i % 7 == 0 {
                s.rect(&Rect::new(
                    x,
                    y,
                    rng.f32() * 600.0,
                    rng.f32() * 300.0,
                    [1, 2, 3, 4],
                ))
                .unwrap();
            } else {
                s.ellipse(&Ellipse::circle(x, y, rng.f32() * 20.0, [5, 6, 7, 8]))
                    .unwrap();
            }
        }
        let want = reference::bin_lists(&s);
        let pairs: usize = want.iter().map(Vec::len).sum();
        assert!(
            pairs as u64 <= s.pair_bound(),
            "the builder's bound holds every pair"
        );
        for width in [1, 2, 4, 8, 16, 32, 64, 128] {
            let (got, total) = bin_lists(&s, width);
            assert_eq!(total, pairs, "width {width}");
            assert_eq!(got, want, "width {width}");
        }
    }
}
