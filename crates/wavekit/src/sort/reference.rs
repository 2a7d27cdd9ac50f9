//! The plain Rust reference of the radix sort: a stable sort by the key's bits in the chosen
//! range, in the total order the GPU uses.

use super::KeyType;

/// A key of any supported type as its raw bits (u64 for all).
pub trait SortKey: Copy + bytemuck::Pod {
    /// The key type.
    const TYPE: KeyType;
    /// The raw bits.
    fn raw(self) -> u64;
}

impl SortKey for u32 {
    const TYPE: KeyType = KeyType::U32;
    fn raw(self) -> u64 {
        u64::from(self)
    }
}

impl SortKey for i32 {
    const TYPE: KeyType = KeyType::I32;
    fn raw(self) -> u64 {
        u64::from(self as u32)
    }
}

impl SortKey for f32 {
    const TYPE: KeyType = KeyType::F32;
    fn raw(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl SortKey for u64 {
    const TYPE: KeyType = KeyType::U64;
    fn raw(self) -> u64 {
        self
    }
}

/// An `f32` sorted in numpy's order ([`KeyType::F32Numpy`]): the same bits as the float, so a
/// buffer of `f32` sorts as one of `NumpyF32` and reads back as floats.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct NumpyF32(pub f32);

impl SortKey for NumpyF32 {
    const TYPE: KeyType = KeyType::F32Numpy;
    fn raw(self) -> u64 {
        u64::from(self.0.to_bits())
    }
}

/// The bits whose unsigned order is the key order: i32 with its sign bit flipped; f32 in total
/// order (−NaN < −∞ < … < −0 < +0 < … < +∞ < +NaN: negative values with every bit flipped,
/// the others with the sign bit set); f32 in numpy's order as that of its canonical bits (every
/// NaN the one positive NaN, −0 as +0); inverted for a descending sort.
pub fn sortable(ty: KeyType, raw: u64, descending: bool) -> u64 {
    let t = match ty {
        KeyType::U32 | KeyType::U64 => raw,
        KeyType::I32 => raw ^ 0x8000_0000,
        KeyType::F32 => total_order(raw),
        KeyType::F32Numpy => {
            // Every NaN as the one positive NaN (after +∞), −0 as +0.
            let canonical = if raw & 0x7fff_ffff > 0x7f80_0000 {
                0x7fc0_0000
            } else if raw == 0x8000_0000 {
                0
            } else {
                raw
            };
            total_order(canonical)
        }
    };
    let width_mask = if ty.bits() == 64 {
        u64::MAX
    } else {
        0xffff_ffff
    };
    if descending { !t & width_mask } else { t }
}

/// An f32's bits in total order (negative values with every bit flipped, the others with the
/// sign bit set).
fn total_order(raw: u64) -> u64 {
    if raw & 0x8000_0000 != 0 {
        !raw & 0xffff_ffff
    } else {
        raw | 0x8000_0000
    }
}

/// The sort key of bits `bits` of the sortable form.
fn part(ty: KeyType, raw: u64, descending: bool, bits: (u32, u32)) -> u64 {
    let s = sortable(ty, raw, descending) >> bits.0;
    let width = bits.1 - bits.0;
    if width >= 64 {
        s
    } else {
        s & ((1u64 << width) - 1)
    }
}

/// The permutation that sorts `keys` stably (the original index of each sorted position).
pub fn permutation<K: SortKey>(keys: &[K], descending: bool, bits: (u32, u32)) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..keys.len() as u32).collect();
    idx.sort_by_key(|&i| part(K::TYPE, keys[i as usize].raw(), descending, bits));
    idx
}

/// `keys` sorted stably.
pub fn sort<K: SortKey>(keys: &[K], descending: bool, bits: (u32, u32)) -> Vec<K> {
    permutation(keys, descending, bits)
        .into_iter()
        .map(|i| keys[i as usize])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Floats' bits, to compare sorts exactly (NaNs and the signs of zeros included).
    fn bits(v: impl IntoIterator<Item = f32>) -> Vec<u32> {
        v.into_iter().map(f32::to_bits).collect()
    }

    #[test]
    fn floats_sort_in_total_order() {
        let nan = f32::from_bits(0x7fc0_0000);
        let neg_nan = f32::from_bits(0xffc0_0000);
        let sub = f32::from_bits(1);
        let inf = f32::INFINITY;
        let keys = [1.0f32, nan, -0.0, -inf, 0.0, -sub, neg_nan, sub, inf, -1.0];
        assert_eq!(
            bits(sort(&keys, false, (0, 32))),
            bits([neg_nan, -inf, -1.0, -sub, -0.0, 0.0, sub, 1.0, inf, nan])
        );
    }

    #[test]
    fn floats_sort_in_numpys_order() {
        let nan = f32::from_bits(0x7fc0_0000);
        let neg_nan = f32::from_bits(0xffc0_0000);
        let odd_nan = f32::from_bits(0x7f80_0001);
        let inf = f32::INFINITY;
        let keys = [1.0f32, nan, -0.0, -inf, 0.0, neg_nan, inf, odd_nan, -0.0].map(NumpyF32);
        let sorted = |descending| bits(sort(&keys, descending, (0, 32)).into_iter().map(|k| k.0));
        // −0 and +0 equal, every NaN equal and last, each group in its input order.
        assert_eq!(
            sorted(false),
            bits([-inf, -0.0, 0.0, -0.0, 1.0, inf, nan, neg_nan, odd_nan])
        );
        assert_eq!(sorted(true)[..3], bits([nan, neg_nan, odd_nan]));
    }

    #[test]
    fn signed_and_descending_and_bit_ranges() {
        assert_eq!(
            sort(&[3i32, -1, 0, i32::MIN, i32::MAX], false, (0, 32)),
            [i32::MIN, -1, 0, 3, i32::MAX]
        );
        assert_eq!(sort(&[3u32, 1, 2], true, (0, 32)), [3, 2, 1]);
        // Only the low 4 bits count: 0x13 and 0x03 tie and keep their order.
        assert_eq!(
            sort(&[0x13u32, 0x05, 0x03], false, (0, 4)),
            [0x13, 0x03, 0x05]
        );
        assert_eq!(
            sort(&[u64::MAX, 1, 1 << 40], false, (0, 64)),
            [1, 1 << 40, u64::MAX]
        );
    }
}
