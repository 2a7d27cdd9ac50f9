//! Plain Rust references for the scans: serial, in element order. Integers wrap; floats are
//! accumulated in f64 (the tests compare the GPU's f32 against them with a tolerance).

use crate::monoid::Op;

/// A value the references can combine: integers exactly, floats in f64.
pub trait RefElement: Copy {
    /// Identity of `op`.
    fn identity(op: Op) -> Self;
    /// `a op b`.
    fn combine(op: Op, a: Self, b: Self) -> Self;
}

impl RefElement for u32 {
    fn identity(op: Op) -> Self {
        match op {
            Op::Add | Op::Max => 0,
            Op::Min => u32::MAX,
        }
    }
    fn combine(op: Op, a: Self, b: Self) -> Self {
        match op {
            Op::Add => a.wrapping_add(b),
            Op::Min => a.min(b),
            Op::Max => a.max(b),
        }
    }
}

impl RefElement for i32 {
    fn identity(op: Op) -> Self {
        match op {
            Op::Add => 0,
            Op::Min => i32::MAX,
            Op::Max => i32::MIN,
        }
    }
    fn combine(op: Op, a: Self, b: Self) -> Self {
        match op {
            Op::Add => a.wrapping_add(b),
            Op::Min => a.min(b),
            Op::Max => a.max(b),
        }
    }
}

impl RefElement for f64 {
    fn identity(op: Op) -> Self {
        match op {
            Op::Add => 0.0,
            Op::Min => f64::INFINITY,
            Op::Max => f64::NEG_INFINITY,
        }
    }
    fn combine(op: Op, a: Self, b: Self) -> Self {
        match op {
            Op::Add => a + b,
            Op::Min => a.min(b),
            Op::Max => a.max(b),
        }
    }
}

/// Inclusive or exclusive scan.
pub fn scan<T: RefElement>(data: &[T], op: Op, inclusive: bool) -> Vec<T> {
    let mut acc = T::identity(op);
    data.iter()
        .map(|&x| {
            let before = acc;
            acc = T::combine(op, acc, x);
            if inclusive { acc } else { before }
        })
        .collect()
}

/// Segmented scan: restarts at every index whose flag is non-zero.
pub fn segmented_scan<T: RefElement>(data: &[T], heads: &[u32], op: Op, inclusive: bool) -> Vec<T> {
    let mut acc = T::identity(op);
    data.iter()
        .zip(heads)
        .map(|(&x, &h)| {
            if h != 0 {
                acc = T::identity(op);
            }
            let before = acc;
            acc = T::combine(op, acc, x);
            if inclusive { acc } else { before }
        })
        .collect()
}

/// Reduction.
pub fn reduce<T: RefElement>(data: &[T], op: Op) -> T {
    data.iter()
        .fold(T::identity(op), |a, &x| T::combine(op, a, x))
}

/// Stable select: the kept elements in order.
pub fn select<T: Copy>(data: &[T], keep: &[bool]) -> Vec<T> {
    data.iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .map(|(x, _)| *x)
        .collect()
}

/// Stable partition: kept elements in order, then the rest in order; and the kept count.
pub fn partition<T: Copy>(data: &[T], keep: &[bool]) -> (Vec<T>, usize) {
    let mut out = select(data, keep);
    let kept = out.len();
    out.extend(data.iter().zip(keep).filter(|(_, k)| !**k).map(|(x, _)| *x));
    (out, kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked_values() {
        let x = [3u32, 1, 4, 1, 5];
        assert_eq!(scan(&x, Op::Add, true), [3, 4, 8, 9, 14]);
        assert_eq!(scan(&x, Op::Add, false), [0, 3, 4, 8, 9]);
        assert_eq!(scan(&x, Op::Min, true), [3, 1, 1, 1, 1]);
        assert_eq!(scan(&x, Op::Max, false), [0, 3, 3, 4, 4]);
        assert_eq!(scan(&[-2i32, 5, -7], Op::Min, false), [i32::MAX, -2, -2]);
        assert_eq!(
            segmented_scan(&x, &[0, 0, 1, 0, 1], Op::Add, true),
            [3, 4, 4, 5, 5]
        );
        assert_eq!(
            segmented_scan(&x, &[1, 0, 1, 0, 0], Op::Add, false),
            [0, 3, 0, 4, 5]
        );
        assert_eq!(reduce(&[u32::MAX, 2], Op::Add), 1);
        let keep = [true, false, true, false, true];
        assert_eq!(select(&x, &keep), [3, 4, 5]);
        assert_eq!(partition(&x, &keep), (vec![3, 4, 5, 1, 1], 3));
    }
}
