//! `wavekit selftest`: every subgroup operation family the library relies on, run on the GPU in
//! every workgroup shape the library uses, checked against values computed on the host, and
//! subgroup operations after loops whose trip count differs by lane ([`reconvergence`],
//! ADR-0092). A tool, not a layer: a crate of its own beside the library, on the foundation
//! (`wavekit-gpu`).

#![warn(missing_docs)]
pub mod reconvergence;
pub mod reference;

use serde::Serialize;

use wavekit_gpu::context::{AdapterSummary, GpuContext};
use wavekit_gpu::error::{Error, Result};
use wavekit_gpu::shader::{Composed, ConstValue, WgslSource, compose};
use wavekit_gpu::tuning::WORKGROUP_SHAPES;

pub use reconvergence::ReconvergenceReport;
pub use reference::FamilyResult;

/// The WGSL files of the self-test's kernels.
pub static SOURCES: &[WgslSource] = &[
    wavekit_gpu::wgsl_source!("selftest/subgroup_ops", "subgroup_ops.wgsl"),
    wavekit_gpu::wgsl_source!("selftest/reconvergence", "reconvergence.wgsl"),
];

/// Workgroups dispatched per shape.
const WORKGROUPS: u32 = 6;

/// What happened for one workgroup shape.
#[derive(Clone, Debug, Serialize)]
pub struct ShapeReport {
    /// The shape.
    pub shape: [u32; 3],
    /// `None` if it ran; otherwise why it was skipped.
    pub skipped: Option<String>,
    /// Subgroup widths the GPU reported in this shape.
    pub widths_seen: Vec<u32>,
}

/// The whole self-test.
#[derive(Clone, Debug, Serialize)]
pub struct SelftestReport {
    /// The adapter it ran on.
    pub adapter: AdapterSummary,
    /// The adapter's subgroup width range.
    pub subgroup_size_range: (u32, u32),
    /// One per workgroup shape.
    pub shapes: Vec<ShapeReport>,
    /// One per operation family.
    pub families: Vec<FamilyResult>,
    /// Subgroup operations after loops whose trip count differs by lane (ADR-0092): the
    /// remedy variants must be right; the others are observations.
    pub reconvergence: ReconvergenceReport,
}

impl SelftestReport {
    /// Whether every family passed and the subgroup-uniform loops' operations were right
    /// (whether the adapter reconverges after divergent loops is an observation, not a
    /// failure: see [`ReconvergenceReport::reconverged`]).
    pub fn passed(&self) -> bool {
        self.families.iter().all(FamilyResult::ok) && self.reconvergence.remedy_ok()
    }
}

/// Run the self-test with input seed `seed`. Fails with [`wavekit_gpu::Error::MissingFeature`] on a
/// device without subgroup operations.
pub fn run(ctx: &GpuContext, seed: u64) -> Result<SelftestReport> {
    // With blocking read-backs nothing in `run_with` waits: one poll completes it.
    wavekit_gpu::buffers::complete_now(
        run_with(ctx, seed, true),
        "the self-test",
        "wavekit_selftest::run_async",
    )
}

/// [`run`] as a future, for the web (where a read-back cannot block).
pub async fn run_async(ctx: &GpuContext, seed: u64) -> Result<SelftestReport> {
    run_with(ctx, seed, false).await
}

async fn run_with(ctx: &GpuContext, seed: u64, blocking: bool) -> Result<SelftestReport> {
    ctx.require_subgroups()?;
    let range = (ctx.caps.subgroups.min_size, ctx.caps.subgroups.max_size);
    let mut families = reference::empty_results();
    let mut shapes = Vec::new();
    for (s, &shape) in WORKGROUP_SHAPES.iter().enumerate() {
        if let Err(e) = ctx.check_workgroup(shape) {
            shapes.push(ShapeReport {
                shape,
                skipped: Some(e.to_string()),
                widths_seen: vec![],
            });
            continue;
        }
        let per_wg = shape.iter().product::<u32>();
        let input = reference::make_input(seed.wrapping_add(s as u64), WORKGROUPS, per_wg);
        let output = if blocking {
            run_shape(ctx, shape, &input)?
        } else {
            let (out, words) = submit_shape(ctx, shape, &input)?;
            ctx.read_back_async("selftest output", &out, words).await?
        };
        reference::check(shape, &input, &output, range, &mut families);
        let mut widths: Vec<u32> = output
            .chunks_exact(reference::FIELDS as usize)
            .map(|r| r[2])
            .collect();
        widths.sort_unstable();
        widths.dedup();
        shapes.push(ShapeReport {
            shape,
            skipped: None,
            widths_seen: widths,
        });
    }
    let input = reconvergence::make_input(seed);
    let (out, words) = reconvergence::submit(ctx, &input)?;
    let output = if blocking {
        ctx.read_back("selftest reconvergence output", &out, words)?
    } else {
        ctx.read_back_async("selftest reconvergence output", &out, words)
            .await?
    };
    Ok(SelftestReport {
        adapter: ctx.summary.clone(),
        subgroup_size_range: range,
        shapes,
        families,
        reconvergence: reconvergence::check(&input, &output),
    })
}

/// The self-test kernel for a 1-D workgroup of `size` invocations.
pub fn composed(size: u32) -> Result<Composed> {
    compose(
        "selftest/subgroup_ops",
        &[
            ("WG_SIZE", ConstValue::U32(size)),
            ("FIELDS", ConstValue::U32(reference::FIELDS)),
        ],
        SOURCES,
        &[],
    )
}

/// Run `subgroup_ops.wgsl` once in `shape` over `input` (one value per invocation) and return
/// the raw output records. The output is poisoned first.
pub fn run_shape(ctx: &GpuContext, shape: [u32; 3], input: &[u32]) -> Result<Vec<u32>> {
    let (out, words) = submit_shape(ctx, shape, input)?;
    ctx.read_back("selftest output", &out, words)
}

/// Submit `subgroup_ops.wgsl` in `shape` over `input`: the output buffer and its words.
fn submit_shape(ctx: &GpuContext, shape: [u32; 3], input: &[u32]) -> Result<(wgpu::Buffer, usize)> {
    if shape[1] != 1
        || shape[2] != 1
        || shape[0] == 0
        || !input.len().is_multiple_of(shape[0] as usize)
    {
        return Err(Error::InvalidArgument(format!(
            "self-test shape {shape:?} with {} inputs: shapes are 1-D and the input a whole \
             number of workgroups",
            input.len()
        )));
    }
    let per_wg = shape[0] as usize;
    let workgroups = (input.len() / per_wg) as u32;
    let composed = composed(shape[0])?;
    let module = ctx.shader_module(&composed)?;
    let pipeline = ctx.compute_pipeline("wavekit.selftest", &module, "main")?;
    let words = input.len() * reference::FIELDS as usize;
    let in_buf = ctx.storage_from("selftest input", input)?;
    let out_buf = ctx.storage_poisoned("selftest output", words)?;
    ctx.scoped("running the self-test kernel", || {
        let bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wavekit.selftest"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: in_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: out_buf.as_entire_binding(),
                },
            ],
        });
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(workgroups, 1, 1);
        }
        ctx.queue.submit([enc.finish()]);
    })?;
    Ok((out_buf, words))
}
