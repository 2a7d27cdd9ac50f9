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

/// The bits whose unsigned order is the key order: i32 with its sign bit flipped; f32 in total
/// order (−NaN < −∞ < … < −0 < +0 < … < +∞ < +NaN: negative values with every bit flipped,
/// the others with the sign bit set); inverted for a descending sort.
pub fn sortable(ty: KeyType, raw: u64, descending: bool) -> u64 {
    let t = match ty {
        KeyType::U32 | KeyType::U64 => raw,
        KeyType::I32 => raw ^ 0x8000_0000,
        KeyType::F32 => {
            if raw & 0x8000_0000 != 0 {
                !raw & 0xffff_ffff
            } else {
                raw | 0x8000_0000
            }
        }
    };
    let width_mask = if ty.bits() == 64 {
        u64::MAX
    } else {
        0xffff_ffff
    };
    if descending { !t & width_mask } else { t }
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

    #[test]
    fn floats_sort_in_total_order() {
        let nan = f32::from_bits(0x7fc0_0000);
        let neg_nan = f32::from_bits(0xffc0_0000);
        let sub = f32::from_bits(1);
        let keys = [
            1.0f32,
            nan,
            -0.0,
            f32::NEG_INFINITY,
            0.0,
            -sub,
            neg_nan,
            sub,
            f32::INFINITY,
            -1.0,
        ];
        let got: Vec<u32> = sort(&keys, false, (0, 32))
            .iter()
            .map(|f| f.to_bits())
            .collect();
        let want: Vec<u32> = [
            neg_nan,
            f32::NEG_INFINITY,
            -1.0,
            -sub,
            -0.0,
            0.0,
            sub,
            1.0,
            f32::INFINITY,
            nan,
        ]
        .iter()
        .map(|f| f.to_bits())
        .collect();
        assert_eq!(got, want);
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
