//! Counted recording: what a primitive puts into a command encoder (compute passes, dispatches,
//! buffer clears and copies). The primitives record their passes, clears and copies through
//! [`compute_pass`], [`clear`] and [`copy`], and [`crate::kernel::Kernel`] counts each
//! dispatch; [`count`] reports what one recording held, which the benchmarks print beside each
//! time with the floor those commands set (issue 31). Counting is per thread and costs one
//! thread-local read a command when nobody counts.

use std::cell::Cell;

/// What one recording put into an encoder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Recorded {
    /// Compute passes begun.
    pub passes: u32,
    /// Dispatches (direct and indirect).
    pub dispatches: u32,
    /// `clear_buffer` commands.
    pub clears: u32,
    /// `copy_buffer_to_buffer` commands.
    pub copies: u32,
}

impl Recorded {
    /// Commands of any kind.
    pub fn commands(&self) -> u32 {
        self.dispatches + self.clears + self.copies
    }
}

thread_local! {
    static COUNTING: Cell<Option<Recorded>> = const { Cell::new(None) };
}

fn note(f: impl FnOnce(&mut Recorded)) {
    COUNTING.with(|c| {
        if let Some(mut r) = c.get() {
            f(&mut r);
            c.set(Some(r));
        }
    });
}

/// Counts a dispatch (called by [`crate::kernel::Kernel`]'s dispatches, and by any kernel
/// dispatched without it).
pub fn note_dispatch() {
    note(|r| r.dispatches += 1);
}

/// What `record` puts into encoders on this thread, counted (nested counts are not supported:
/// an inner one reports its own commands and the outer one sees none of them).
pub fn count(record: impl FnOnce()) -> Recorded {
    let outer = COUNTING.with(|c| c.replace(Some(Recorded::default())));
    record();
    let got = COUNTING.with(|c| c.replace(outer));
    got.unwrap_or_default()
}

/// Begin a compute pass labelled `label` (no timestamp writes), counted.
pub fn compute_pass<'e>(enc: &'e mut wgpu::CommandEncoder, label: &str) -> wgpu::ComputePass<'e> {
    note(|r| r.passes += 1);
    enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes: None,
    })
}

/// `clear_buffer(buffer, offset, size)`, counted.
pub fn clear(
    enc: &mut wgpu::CommandEncoder,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: Option<u64>,
) {
    note(|r| r.clears += 1);
    enc.clear_buffer(buffer, offset, size);
}

/// `copy_buffer_to_buffer`, counted.
pub fn copy(
    enc: &mut wgpu::CommandEncoder,
    from: &wgpu::Buffer,
    from_offset: u64,
    to: &wgpu::Buffer,
    to_offset: u64,
    size: Option<u64>,
) {
    note(|r| r.copies += 1);
    enc.copy_buffer_to_buffer(from, from_offset, to, to_offset, size);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_only_inside_and_restores_the_outer_count() {
        note_dispatch();
        let outer = count(|| {
            note_dispatch();
            let inner = count(|| {
                note_dispatch();
                note_dispatch();
            });
            assert_eq!(inner.dispatches, 2);
            note_dispatch();
        });
        assert_eq!(outer.dispatches, 2);
        assert_eq!(count(|| {}), Recorded::default());
    }
}
