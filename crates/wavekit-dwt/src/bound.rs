//! A transform bound to its buffers ([`BoundDwt`]): each level's bind group and dispatch,
//! recorded into the caller's encoder any number of times.

use wavekit::kernel::Kernel;

use crate::kernel::{TileShape, Variant};

/// One level's dispatch before its kernel is looked up: the kernel's variant and shape, its
/// parameters and workgroup grid.
pub(crate) struct LevelSpec {
    pub(crate) key: (Variant, TileShape),
    pub(crate) params: wgpu::Buffer,
    pub(crate) groups: (u32, u32),
}

/// One level's dispatch: its kernel, parameters and workgroup grid.
#[derive(Debug)]
pub(crate) struct LevelPass {
    pub(crate) kernel: Kernel,
    pub(crate) params: wgpu::Buffer,
    pub(crate) groups: (u32, u32),
}

/// A transform bound to its buffers, ready to record any number of times.
#[derive(Debug)]
pub struct BoundDwt {
    /// Per level, in order: bind group and dispatch.
    pub(crate) forward: Vec<(wgpu::BindGroup, LevelPass)>,
    pub(crate) inverse: Vec<(wgpu::BindGroup, LevelPass)>,
    /// In place: the data to scratch before the forward, scratch back to the data after the
    /// inverse. Separate with no levels: the copy that is the whole transform.
    pub(crate) forward_copy: Option<wavekit::copy::BoundCopy>,
    pub(crate) inverse_copy: Option<wavekit::copy::BoundCopy>,
    pub(crate) _buffers: (wgpu::Buffer, [wgpu::Buffer; 3]),
}

impl BoundDwt {
    fn record(&self, enc: &mut wgpu::CommandEncoder, passes: &[(wgpu::BindGroup, LevelPass)]) {
        if passes.is_empty() {
            return;
        }
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wavekit.dwt"),
            timestamp_writes: None,
        });
        for (bind, level) in passes {
            level
                .kernel
                .dispatch_grid(&mut pass, bind, level.groups.0, level.groups.1);
        }
    }

    /// Record the forward transform.
    pub fn record_forward(&self, enc: &mut wgpu::CommandEncoder) {
        if let Some(c) = &self.forward_copy {
            c.record(enc);
        }
        self.record(enc, &self.forward);
    }

    /// Record the inverse transform (its last level to the 8-bit output, if bound with one).
    pub fn record_inverse(&self, enc: &mut wgpu::CommandEncoder) {
        self.record(enc, &self.inverse);
        if let Some(c) = &self.inverse_copy {
            c.record(enc);
        }
    }
}
