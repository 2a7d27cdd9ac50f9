//! The GPU pipeline: the kernels built once ([`UiRenderer`]), a frame's buffers and bind groups
//! ([`Frame`], reused from frame to frame and grown when a scene needs more), and the recording
//! of a frame into the caller's encoder.
//!
//! ```text
//! upload: one scene buffer (glyph atlas | image atlas | items | clips | gradients), parameters
//! bin_count a workgroup a chunk of items  -> each item's boxes and bin rect (bbox.wgsl), and
//!                                            the chunk's count on each bin, bin-major
//! scan      exclusive (wavekit::scan)     -> offsets: each bin's list and each chunk's place
//! bin_place a workgroup a chunk of items  -> list: each bin's items in draw order (bin_emit:
//!                                            the same from (chunk group, bin) workgroups)
//! fine      one workgroup a 16 x 16 tile  -> the caller's texture or buffer
//! ```

use wavekit::GpuContext;
use wavekit::kernel::Kernel;
use wavekit::monoid::{Monoid, Op, Scalar};
use wavekit::prelude::{KernelBuilder, WgslSource};
use wavekit::record;
use wavekit::scan::{BoundScan, Scan, ScanConfig};

use crate::atlas::{GLYPH_ATLAS_WIDTH, IMAGE_ATLAS_WIDTH};
use crate::error::{Result, UiError};
use crate::records::{self, BIN, CHUNK, TILE, feature};
use crate::scene::Scene;

/// The compositor's WGSL files.
pub static SOURCES: &[WgslSource] = &[
    wavekit::wgsl_source!("ui/records", "records.wgsl"),
    wavekit::wgsl_source!("ui/shade", "shade.wgsl"),
    wavekit::wgsl_source!("ui/bbox", "bbox.wgsl"),
    wavekit::wgsl_source!("ui/bin_count", "bin_count.wgsl"),
    wavekit::wgsl_source!("ui/lists", "lists.wgsl"),
    wavekit::wgsl_source!("ui/bin_emit", "bin_emit.wgsl"),
    wavekit::wgsl_source!("ui/bin_place", "bin_place.wgsl"),
    wavekit::wgsl_source!("ui/fine", "fine.wgsl"),
];

/// How the fine kernel packs a chunk's surviving candidates into workgroup memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Compaction {
    /// Ordered compaction (`wg_compact`): a survivor's slot is the number of survivors before
    /// it. The default, and the only one that keeps draw order.
    #[default]
    Ordered,
    /// One invocation walks the flags serially (measurement only: what ordered compaction
    /// replaces).
    Serial,
    /// An atomic counter hands out slots (measurement only: draw order is lost).
    Atomic,
}

impl Compaction {
    /// Every variant.
    pub const ALL: [Compaction; 3] = [Compaction::Ordered, Compaction::Serial, Compaction::Atomic];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Compaction::Ordered => "ordered",
            Compaction::Serial => "serial",
            Compaction::Atomic => "atomic",
        }
    }

    fn code(self) -> u32 {
        self as u32
    }
}

/// The renderer's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderConfig {
    /// How a chunk's survivors are packed (measurement variants aside, leave it ordered).
    pub compaction: Compaction,
    /// Skip what lies under an opaque item that covers a whole tile.
    pub cull: bool,
    /// With `cull`: the binning flags each bin that holds an item opaque over a whole tile of
    /// it, and the fine pass looks for such covers only in flagged bins (text, say, has none).
    pub cover_flags: bool,
    /// Draw each scene with a fine kernel built for what it holds (its kinds of item,
    /// gradients, clips: [`records::feature`]), the code for the rest left out; `false`: the
    /// general kernel always. The kernels are built the first time a scene needs them (and
    /// kept by the context).
    pub specialize: bool,
    /// The fine pass copies each batch of a tile's survivors' records into workgroup memory,
    /// every invocation loading a few words, and its pixels read them there; `false`: each
    /// pixel reads each record from the scene buffer (ADR-0114).
    pub stage_records: bool,
    /// Frames of at least [`RenderConfig::place_min_items`] items have their bin lists written
    /// by a workgroup a chunk, its items placing themselves on the bins they touch
    /// (`bin_place`: work by item-bin pairs, but one workgroup a chunk works alone); others,
    /// and every frame with `false`, by a workgroup a bin and eight chunks, each testing every
    /// item of its chunks (`bin_emit`: bins × items, in parallel). On a software adapter,
    /// frames of more than [`SOFTWARE_PLACE_BINS`] bins take `bin_emit` (ADR-0116).
    pub place_by_chunk: bool,
    /// The fewest items for which `place_by_chunk` takes `bin_place` ([`PLACE_MIN_ITEMS`] by
    /// default).
    pub place_min_items: u32,
    /// Count each tile's composited candidates (tests, measurements): [`UiRenderer::tile_stats`].
    pub stats: bool,
    /// The most loop iterations one tile's fine pass may take, counted conservatively from the
    /// scene (each candidate, its clip chain's depth, its gradient's stops, a shadow's samples).
    /// A scene over it is drawn in several fine passes, each a slice of the items in draw order,
    /// the colours carried between them in f32 (the pixels are the same bits). `None`: no limit
    /// on a GPU; [`SOFTWARE_LOOP_BUDGET`] on a software adapter (llvmpipe ends a shader's loops
    /// after 65 535 iterations in all, and drew wrong pixels past that: ADR-0083).
    pub loop_budget: Option<u32>,
}

/// The fine pass's loop budget on software adapters: half of llvmpipe's 65 535 iterations.
pub const SOFTWARE_LOOP_BUDGET: u32 = 32_768;

/// [`RenderConfig::place_min_items`]'s default: on the H100 (session 45) `bin_place` was
/// 3–8 % faster than `bin_emit` at 100 000 items, slower at 10 000 (its 40 workgroups, one a
/// chunk, work alone) and at 50 000.
pub const PLACE_MIN_ITEMS: u32 = 65_536;

/// The most bins a frame may have for `bin_place` on a software adapter: its loops take up to
/// one compaction (up to 8 iterations without subgroups) a bin that holds two of a chunk's
/// items, and llvmpipe ends a shader's loops after 65 535 iterations in all.
pub const SOFTWARE_PLACE_BINS: u32 = 2048;

/// Loop iterations a candidate costs the fine pass at most, besides its clip chain, gradient
/// stops and shadow samples: its turn in the compositing loop, its share of its chunk's
/// compaction (loops over the subgroups or, emulated, the lanes), of the culling walk and of
/// the staging's batches (at most one a candidate).
const ITEM_LOOPS: u64 = 6;

/// Loop iterations a fine pass costs a tile besides its candidates: two binary searches for
/// the slice's ends in the tile's list, and the walks' last partial chunks.
const PASS_LOOPS: u64 = 96;

impl Default for RenderConfig {
    fn default() -> Self {
        Self {
            compaction: Compaction::Ordered,
            cull: true,
            cover_flags: true,
            specialize: true,
            stage_records: true,
            place_by_chunk: true,
            place_min_items: PLACE_MIN_ITEMS,
            stats: false,
            loop_budget: None,
        }
    }
}

/// Where the fine kernel writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// A storage buffer of one u32 a pixel (RGBA8, R in the low byte), row-major.
    Buffer,
    /// A storage texture, `Rgba8Unorm`.
    Texture,
}

fn output_wgsl(kind: TargetKind) -> &'static str {
    match kind {
        TargetKind::Buffer => {
            "@group(0) @binding(9) var<storage, read_write> out_pixels: array<u32>;\n\
             fn store_pixel(x: u32, y: u32, q: vec4<u32>) {\n\
             \x20   out_pixels[y * params.width + x] = q.x | (q.y << 8u) | (q.z << 16u) | (q.w << 24u);\n\
             }\n"
        }
        TargetKind::Texture => {
            "@group(0) @binding(9) var out_texture: texture_storage_2d<rgba8unorm, write>;\n\
             fn store_pixel(x: u32, y: u32, q: vec4<u32>) {\n\
             \x20   textureStore(out_texture, vec2<u32>(x, y), vec4<f32>(q) / 255.0);\n\
             }\n"
        }
    }
}

/// The builder of one of the compositor's kernels (`ui/bin_count`, which holds `ui/bbox`,
/// `ui/bin_emit`, `ui/bin_place`, `ui/fine`): the crate's tests check every one with naga, with subgroups and
/// without. The fine kernel is the general one, for every feature ([`fine_builder`]: one for
/// some).
pub fn builder(entry: &str, config: &RenderConfig, target: TargetKind) -> KernelBuilder {
    fine_builder_for(entry, config, target, feature::ALL)
}

/// The fine kernel's builder for scenes with only `features` ([`records::feature`]): the
/// shading of whatever else is left out of it.
pub fn fine_builder(config: &RenderConfig, target: TargetKind, features: u32) -> KernelBuilder {
    fine_builder_for("ui/fine", config, target, features)
}

fn fine_builder_for(
    entry: &str,
    config: &RenderConfig,
    target: TargetKind,
    features: u32,
) -> KernelBuilder {
    let mut b = KernelBuilder::new(entry, SOURCES)
        .workgroup_size(if entry == "ui/fine" {
            TILE * TILE
        } else {
            CHUNK
        })
        .generated("ui/layout", records::layout_wgsl())
        .generated("ui/params", params_wgsl())
        .constant("COVER_FLAGS", config.cull && config.cover_flags);
    if entry == "ui/fine" {
        b = b
            .constant("COMPACT", config.compaction.code())
            .constant("STATS", config.stats)
            .constant("STAGE_RECORDS", config.stage_records)
            .constant("HAS_SHAPE", features & feature::SHAPE != 0)
            .constant("HAS_IMAGE", features & feature::IMAGE != 0)
            .constant("HAS_GLYPH", features & feature::GLYPH != 0)
            .constant("HAS_SHADOW", features & feature::SHADOW != 0)
            .constant("HAS_GRADIENT", features & feature::GRADIENT != 0)
            .constant("HAS_CLIP", features & feature::CLIP != 0)
            .generated("ui/output", output_wgsl(target));
    }
    b
}

/// The frame parameters (the kernels' uniform `Params`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Params {
    width: u32,
    height: u32,
    tiles_x: u32,
    tiles_y: u32,
    bins_x: u32,
    bins_y: u32,
    n_items: u32,
    chunks: u32,
    clip_base: u32,
    gradient_base: u32,
    glyph_base: u32,
    image_base: u32,
    capacity: u32,
    cull: u32,
    glyph_row_words: u32,
    image_row: u32,
    item_base: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    background: [f32; 4],
}

/// `Params`' fields in order with their WGSL types: the kernels' `struct Params` is generated
/// from this list (the piece `ui/params`), and the kernels' validation test holds the Rust
/// struct's layout to the WGSL one, member by member.
const PARAMS: [(&str, &str); 21] = [
    ("width", "u32"),
    ("height", "u32"),
    ("tiles_x", "u32"),
    ("tiles_y", "u32"),
    ("bins_x", "u32"),
    ("bins_y", "u32"),
    ("n_items", "u32"),
    ("chunks", "u32"),
    ("clip_base", "u32"),
    ("gradient_base", "u32"),
    ("glyph_base", "u32"),
    ("image_base", "u32"),
    // Room in the bin lists.
    ("capacity", "u32"),
    // 1: opaque items hide what is beneath them.
    ("cull", "u32"),
    ("glyph_row_words", "u32"),
    ("image_row", "u32"),
    ("item_base", "u32"),
    ("pad0", "u32"),
    ("pad1", "u32"),
    ("pad2", "u32"),
    ("background", "vec4<f32>"),
];

/// The piece `ui/params`: `struct Params` in WGSL, from [`PARAMS`].
fn params_wgsl() -> String {
    let fields: String = PARAMS
        .iter()
        .map(|(name, ty)| format!("    {name}: {ty},\n"))
        .collect();
    format!("struct Params {{\n{fields}}}\n")
}

/// `Params`' fields as `wavekit::shader::check_uniform` takes them (the kernels' validation
/// test holds records.wgsl's declaration to this one).
#[cfg(test)]
pub(crate) fn params_fields() -> Vec<(&'static str, usize, usize)> {
    wavekit::uniform_fields!(
        Params,
        width,
        height,
        tiles_x,
        tiles_y,
        bins_x,
        bins_y,
        n_items,
        chunks,
        clip_base,
        gradient_base,
        glyph_base,
        image_base,
        capacity,
        cull,
        glyph_row_words,
        image_row,
        item_base,
        pad0,
        pad1,
        pad2,
        background,
    )
    .to_vec()
}

/// An `Rgba8Unorm` storage texture of `width × height` for [`UiRenderer::target_texture`] (a
/// window's surface is rarely a storage texture: render here, then copy or blit), with
/// `usage` added to `STORAGE_BINDING` (`COPY_SRC` to read it back, `TEXTURE_BINDING` to blit).
pub fn storage_target(
    ctx: &GpuContext,
    label: &str,
    (width, height): (u32, u32),
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::STORAGE_BINDING | usage,
        view_formats: &[],
    })
}

/// The compositor's pipelines, built once for a device and configuration.
#[derive(Debug)]
pub struct UiRenderer {
    config: RenderConfig,
    /// The fine pass's loop budget on this adapter (the config's, or the software default).
    budget: Option<u32>,
    count: Kernel,
    emit: Kernel,
    place: Kernel,
    fine_buffer: Kernel,
    fine_texture: Kernel,
    scan: Scan,
}

/// A growable storage buffer.
#[derive(Debug)]
struct Grow {
    label: &'static str,
    buf: wgpu::Buffer,
    words: u64,
}

impl Grow {
    fn new(ctx: &GpuContext, label: &'static str, words: u64) -> Result<Grow> {
        let words = words.max(4);
        Ok(Grow {
            label,
            buf: ctx.storage_uninit(label, words * 4)?,
            words,
        })
    }

    /// Make room for `words`; true when the buffer was replaced.
    fn fit(&mut self, ctx: &GpuContext, words: u64) -> Result<bool> {
        if words <= self.words {
            return Ok(false);
        }
        let grown = (words + words / 2).max(4);
        ctx.check_binding(self.label, grown * 4)
            .or_else(|_| ctx.check_binding(self.label, words * 4))?;
        let grown = if ctx.check_binding(self.label, grown * 4).is_ok() {
            grown
        } else {
            words
        };
        self.buf = ctx.storage_uninit(self.label, grown * 4)?;
        self.words = grown;
        Ok(true)
    }
}

/// A frame's buffers and bind groups: made by [`UiRenderer::frame`], filled by
/// [`UiRenderer::upload`] (every frame), recorded by [`UiRenderer::record`].
#[derive(Debug)]
pub struct Frame {
    params: wgpu::Buffer,
    scene: Grow,
    boxes: Grow,
    bin_rects: Grow,
    counts: Grow,
    offsets: Grow,
    list: Grow,
    status: wgpu::Buffer,
    /// A word a bin: an item in it is opaque over a whole tile ([`RenderConfig::cover_flags`]).
    cover: Grow,
    tile_stats: Grow,
    p: Params,
    atlas_version: Option<u64>,
    atlas_words: u64,
    binds: Option<Binds>,
    scan: Option<BoundScan>,
    cells: u64,
    /// The target, the fine kernel drawing into it, and that kernel's bindings.
    output: Option<(Target, Kernel, wgpu::BindGroup)>,
    /// What the fine kernel is built for ([`records::feature`]).
    features: u32,
    /// The fine pass's slice of the items (first, end, flags: 1 the first pass, 2 the last).
    slice: wgpu::Buffer,
    /// Every fine pass's slice, copied into `slice` before its pass (several passes only).
    slices: Grow,
    /// The pixels' f32 colours between fine passes (several passes only).
    carry: Grow,
    /// Fine passes this frame.
    passes: u32,
}

/// The caller's target, held by the frame (so that it can be bound again when the frame's
/// buffers grow).
#[derive(Clone, Debug)]
enum Target {
    Buffer(wgpu::Buffer),
    Texture(wgpu::TextureView),
}

impl Target {
    fn kind(&self) -> TargetKind {
        match self {
            Target::Buffer(_) => TargetKind::Buffer,
            Target::Texture(_) => TargetKind::Texture,
        }
    }

    fn resource(&self) -> wgpu::BindingResource<'_> {
        match self {
            Target::Buffer(b) => b.as_entire_binding(),
            Target::Texture(v) => wgpu::BindingResource::TextureView(v),
        }
    }
}

#[derive(Debug)]
struct Binds {
    count: wgpu::BindGroup,
    emit: wgpu::BindGroup,
    place: wgpu::BindGroup,
}

/// What a frame drew, read back: each tile's composited candidates (with
/// [`RenderConfig::stats`]).
#[derive(Clone, Debug)]
pub struct FrameStats {
    /// Tiles across.
    pub tiles_x: u32,
    /// Candidates composited per tile, row by row.
    pub per_tile: Vec<u32>,
}

impl UiRenderer {
    /// Build the kernels for `ctx`.
    pub fn new(ctx: &GpuContext, config: RenderConfig) -> Result<UiRenderer> {
        let k = |entry: &str, t| builder(entry, &config, t).build(ctx);
        let budget = config
            .loop_budget
            .or(ctx.summary.software.then_some(SOFTWARE_LOOP_BUDGET));
        Ok(UiRenderer {
            config,
            budget,
            count: k("ui/bin_count", TargetKind::Buffer)?,
            emit: k("ui/bin_emit", TargetKind::Buffer)?,
            place: k("ui/bin_place", TargetKind::Buffer)?,
            fine_buffer: k("ui/fine", TargetKind::Buffer)?,
            fine_texture: k("ui/fine", TargetKind::Texture)?,
            scan: Scan::new(
                ctx,
                &ScanConfig::exclusive(Monoid::builtin(Scalar::U32, Op::Add)),
            )?,
        })
    }

    /// Its configuration.
    pub fn config(&self) -> &RenderConfig {
        &self.config
    }

    /// An empty frame; [`UiRenderer::upload`] fills it.
    pub fn frame(&self, ctx: &GpuContext) -> Result<Frame> {
        let params = ctx.uniform_from("ui params", &[Params::default()])?;
        Ok(Frame {
            params,
            scene: Grow::new(ctx, "ui scene", 1024)?,
            boxes: Grow::new(ctx, "ui boxes", 1024)?,
            bin_rects: Grow::new(ctx, "ui bin rects", 256)?,
            counts: Grow::new(ctx, "ui counts", 256)?,
            offsets: Grow::new(ctx, "ui offsets", 256)?,
            list: Grow::new(ctx, "ui lists", 1024)?,
            status: ctx.storage_from("ui status", &[0u32; 4])?,
            cover: Grow::new(ctx, "ui cover flags", 64)?,
            tile_stats: Grow::new(ctx, "ui tile stats", 64)?,
            p: Params::default(),
            atlas_version: None,
            atlas_words: 0,
            binds: None,
            scan: None,
            cells: 0,
            output: None,
            features: feature::ALL,
            slice: ctx.uniform_from("ui fine slice", &[0u32, 0, 3, 0])?,
            slices: Grow::new(ctx, "ui fine slices", 4)?,
            carry: Grow::new(ctx, "ui fine carry", 4)?,
            passes: 1,
        })
    }

    /// Upload `scene` into `frame` (growing its buffers where the scene needs more) and bind
    /// what changed. The scene must be complete ([`Scene::check`]).
    pub fn upload(&self, ctx: &GpuContext, frame: &mut Frame, scene: &Scene) -> Result<()> {
        scene.check()?;
        let n_items = scene.len() as u64;
        let chunks = n_items.div_ceil(u64::from(CHUNK));
        if chunks > 65535 {
            return Err(UiError::Invalid(format!(
                "{n_items} items: a frame takes at most {} items",
                65535 * CHUNK
            )));
        }
        let (w, h) = (scene.width, scene.height);
        let (bins_x, bins_y) = (w.div_ceil(BIN), h.div_ceil(BIN));
        let bins = u64::from(bins_x * bins_y);
        let capacity = scene.pair_bound.max(1);
        if capacity > u64::from(u32::MAX / 2) {
            return Err(UiError::Invalid(format!(
                "the items touch about {capacity} bins in all: too many for one frame; \
                 split the scene"
            )));
        }
        // The scene buffer: atlases first (they change rarely), then items, clips, gradients.
        let glyph_words = u64::from(scene.glyphs.height() * GLYPH_ATLAS_WIDTH / 4);
        let image_words = scene.images.texels.len() as u64;
        let atlas_words = glyph_words + image_words;
        let item_base = atlas_words;
        let clip_base = item_base + scene.items.len() as u64;
        let gradient_base = clip_base + scene.clips.len() as u64;
        let total = gradient_base + scene.gradients.len() as u64;
        let mut rebind = frame.binds.is_none();
        let mut atlases =
            frame.atlas_version != Some(scene.atlas_version) || frame.atlas_words != atlas_words;
        if frame.scene.fit(ctx, total)? {
            rebind = true;
            atlases = true;
        }
        rebind |= frame.boxes.fit(ctx, n_items * 4)?;
        rebind |= frame.bin_rects.fit(ctx, n_items)?;
        let cells = bins * chunks + 1;
        let counts_grew = frame.counts.fit(ctx, cells)?;
        let offsets_grew = frame.offsets.fit(ctx, cells)?;
        rebind |= counts_grew | offsets_grew;
        rebind |= frame.list.fit(ctx, capacity)?;
        rebind |= frame.cover.fit(ctx, bins)?;
        let tiles = u64::from(w.div_ceil(TILE) * h.div_ceil(TILE));
        rebind |= frame.tile_stats.fit(ctx, tiles)?;
        let slices = match self.budget {
            Some(budget) => fine_slices(scene, budget)?,
            None => vec![[0, n_items as u32, 3, 0]],
        };
        if slices.len() > 1 {
            frame_fits(ctx, "colour carry", w, h, 16)?;
            rebind |= frame.slices.fit(ctx, slices.len() as u64 * 4)?;
            rebind |= frame.carry.fit(ctx, u64::from(w) * u64::from(h) * 4)?;
        }

        let q = &ctx.queue;
        let put = |buf: &wgpu::Buffer, word: u64, data: &[u32]| {
            if !data.is_empty() {
                q.write_buffer(buf, word * 4, bytemuck::cast_slice(data));
            }
        };
        if atlases {
            put(&frame.scene.buf, 0, &scene.glyphs.words());
            put(&frame.scene.buf, glyph_words, &scene.images.texels);
            frame.atlas_version = Some(scene.atlas_version);
            frame.atlas_words = atlas_words;
        }
        put(&frame.scene.buf, item_base, &scene.items);
        put(&frame.scene.buf, clip_base, &scene.clips);
        put(&frame.scene.buf, gradient_base, &scene.gradients);
        // The last count is never written: its exclusive prefix is the lists' total.
        put(&frame.counts.buf, cells - 1, &[0]);
        put(&frame.offsets.buf, 0, &[0, 0]);
        put(&frame.status, 0, &[0, 0, 0, 0]);
        if slices.len() > 1 {
            put(&frame.slices.buf, 0, bytemuck::cast_slice(&slices));
        } else {
            put(&frame.slice, 0, &slices[0]);
        }
        frame.passes = slices.len() as u32;
        let bg = records::premul(scene.background, 1.0);
        frame.p = Params {
            width: w,
            height: h,
            tiles_x: w.div_ceil(TILE),
            tiles_y: h.div_ceil(TILE),
            bins_x,
            bins_y,
            n_items: n_items as u32,
            chunks: chunks as u32,
            clip_base: clip_base as u32,
            gradient_base: gradient_base as u32,
            glyph_base: 0,
            image_base: glyph_words as u32,
            capacity: capacity as u32,
            cull: u32::from(self.config.cull),
            glyph_row_words: GLYPH_ATLAS_WIDTH / 4,
            image_row: IMAGE_ATLAS_WIDTH,
            item_base: item_base as u32,
            background: bg,
            ..Params::default()
        };
        put(&frame.params, 0, bytemuck::cast_slice(&[frame.p]));
        let features = if self.config.specialize {
            scene.features
        } else {
            feature::ALL
        };
        if rebind {
            frame.features = features;
            self.bind(ctx, frame)?;
        } else if features != frame.features {
            // Another fine kernel: its own bindings.
            frame.features = features;
            if let Some((target, _, _)) = frame.output.take() {
                self.bind_output(ctx, frame, target)?;
            }
        }
        // The scan is bound for a length: bind it again when that or its buffers change.
        if rebind || frame.cells != cells {
            frame.scan =
                Some(
                    self.scan
                        .bind(ctx, &frame.counts.buf, Some(&frame.offsets.buf), cells)?,
                );
            frame.cells = cells;
        }
        Ok(())
    }

    fn bind(&self, ctx: &GpuContext, f: &mut Frame) -> Result<()> {
        let all: Vec<(u32, &wgpu::Buffer)> = vec![
            (0, &f.params),
            (1, &f.scene.buf),
            (2, &f.boxes.buf),
            (3, &f.bin_rects.buf),
            (5, &f.counts.buf),
            (6, &f.offsets.buf),
            (7, &f.list.buf),
            (8, &f.status),
            (10, &f.tile_stats.buf),
            (13, &f.cover.buf),
        ];
        f.binds = Some(Binds {
            count: self.count.bind(ctx, &all)?,
            emit: self.emit.bind(ctx, &all)?,
            place: self.place.bind(ctx, &all)?,
        });
        if let Some((target, _, _)) = f.output.take() {
            self.bind_output(ctx, f, target)?;
        }
        Ok(())
    }

    /// The fine kernel for `features` (the general one, built with the renderer, for all).
    fn fine_kernel(&self, ctx: &GpuContext, kind: TargetKind, features: u32) -> Result<Kernel> {
        if features == feature::ALL {
            return Ok(match kind {
                TargetKind::Buffer => self.fine_buffer.clone(),
                TargetKind::Texture => self.fine_texture.clone(),
            });
        }
        Ok(fine_builder(&self.config, kind, features).build(ctx)?)
    }

    fn bind_output(&self, ctx: &GpuContext, f: &mut Frame, target: Target) -> Result<()> {
        let k = self.fine_kernel(ctx, target.kind(), f.features)?;
        let entries = [
            (0, f.params.as_entire_binding()),
            (1, f.scene.buf.as_entire_binding()),
            (2, f.boxes.buf.as_entire_binding()),
            (6, f.offsets.buf.as_entire_binding()),
            (7, f.list.buf.as_entire_binding()),
            (9, target.resource()),
            (10, f.tile_stats.buf.as_entire_binding()),
            (11, f.slice.as_entire_binding()),
            (12, f.carry.buf.as_entire_binding()),
            (13, f.cover.buf.as_entire_binding()),
        ];
        let bind = k.bind_resources(ctx, &entries)?;
        f.output = Some((target, k, bind));
        Ok(())
    }

    /// Draw into `buffer`: one u32 a pixel (RGBA8, R in the low byte), row-major, at least
    /// `width × height` words. Call after [`UiRenderer::upload`].
    pub fn target_buffer(
        &self,
        ctx: &GpuContext,
        frame: &mut Frame,
        buffer: &wgpu::Buffer,
    ) -> Result<()> {
        frame_fits(ctx, "pixel", frame.p.width, frame.p.height, 4)?;
        let need = u64::from(frame.p.width) * u64::from(frame.p.height) * 4;
        if buffer.size() < need {
            return Err(UiError::Invalid(format!(
                "an output buffer of {} bytes for {} x {} pixels: it needs {need}",
                buffer.size(),
                frame.p.width,
                frame.p.height
            )));
        }
        self.bind_output(ctx, frame, Target::Buffer(buffer.clone()))
    }

    /// Draw into a texture: `Rgba8Unorm` with `STORAGE_BINDING`, at least the scene's size.
    pub fn target_texture(
        &self,
        ctx: &GpuContext,
        frame: &mut Frame,
        texture: &wgpu::Texture,
    ) -> Result<()> {
        if texture.format() != wgpu::TextureFormat::Rgba8Unorm
            || !texture
                .usage()
                .contains(wgpu::TextureUsages::STORAGE_BINDING)
        {
            return Err(UiError::Invalid(format!(
                "the target texture is {:?} with {:?}: give an Rgba8Unorm texture with \
                 STORAGE_BINDING (blit it to a window's surface)",
                texture.format(),
                texture.usage()
            )));
        }
        if texture.width() < frame.p.width || texture.height() < frame.p.height {
            return Err(UiError::Invalid(format!(
                "a target texture of {} x {} for a {} x {} scene",
                texture.width(),
                texture.height(),
                frame.p.width,
                frame.p.height
            )));
        }
        let view = texture.create_view(&Default::default());
        self.bind_output(ctx, frame, Target::Texture(view))
    }

    /// Fine passes the last uploaded scene takes (1 unless it is over the loop budget:
    /// [`RenderConfig::loop_budget`]).
    pub fn fine_passes(&self, frame: &Frame) -> u32 {
        frame.passes
    }

    /// Whether a frame of `items` items and `bins` bins is binned by `bin_place` (else
    /// `bin_emit`).
    fn places_by_chunk(&self, items: u32, bins: u32) -> bool {
        self.config.place_by_chunk
            && items >= self.config.place_min_items
            && (self.budget.is_none() || bins <= SOFTWARE_PLACE_BINS)
    }

    /// Record the frame into `enc`: bounding boxes, binning, and the fine pass into the target.
    pub fn record(&self, frame: &Frame, enc: &mut wgpu::CommandEncoder) -> Result<()> {
        self.record_stages(frame, enc, true, true)
    }

    /// Record the binning stages (bounding boxes to bin lists), the fine pass, or both: the
    /// benchmark times the binning on its own with this.
    pub fn record_stages(
        &self,
        frame: &Frame,
        enc: &mut wgpu::CommandEncoder,
        binning: bool,
        fine_pass: bool,
    ) -> Result<()> {
        let (Some(b), Some((_, fine_k, fine))) = (&frame.binds, &frame.output) else {
            return Err(UiError::Invalid(
                "record before upload and a target: call upload, then target_buffer or \
                 target_texture"
                    .into(),
            ));
        };
        let p = &frame.p;
        let bins = p.bins_x * p.bins_y;
        if binning && p.n_items > 0 {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wavekit.ui.bin"),
                timestamp_writes: None,
            });
            self.count.dispatch(&mut pass, &b.count, p.chunks);
            drop(pass);
            if let Some(s) = &frame.scan {
                s.record(enc);
            }
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wavekit.ui.emit"),
                timestamp_writes: None,
            });
            if self.places_by_chunk(p.n_items, bins) {
                self.place.dispatch(&mut pass, &b.place, p.chunks);
            } else {
                let groups = p.chunks.div_ceil(records::EMIT_CHUNKS);
                self.emit.dispatch_grid(&mut pass, &b.emit, groups, bins);
            }
        }
        if !fine_pass {
            return Ok(());
        }
        for k in 0..frame.passes {
            if frame.passes > 1 {
                record::copy(
                    enc,
                    &frame.slices.buf,
                    u64::from(k) * 16,
                    &frame.slice,
                    0,
                    Some(16),
                );
            }
            let mut pass = record::compute_pass(enc, "wavekit.ui.fine");
            fine_k.dispatch_grid(&mut pass, fine, p.tiles_x, p.tiles_y);
        }
        Ok(())
    }

    /// After a frame completed: an error if a bin list outgrew its room (never expected: the
    /// scene's bound is conservative).
    pub fn check_frame(&self, ctx: &GpuContext, frame: &Frame) -> Result<()> {
        let s: Vec<u32> = ctx.read_back("ui status", &frame.status, 1)?;
        if s[0] != 0 {
            return Err(UiError::Overflow {
                needed: s[0],
                capacity: frame.p.capacity,
            });
        }
        Ok(())
    }

    /// Each tile's composited candidates in the last frame (with [`RenderConfig::stats`]).
    pub fn tile_stats(&self, ctx: &GpuContext, frame: &Frame) -> Result<FrameStats> {
        let n = (frame.p.tiles_x * frame.p.tiles_y) as usize;
        Ok(FrameStats {
            tiles_x: frame.p.tiles_x,
            per_tile: ctx.read_back("ui tile stats", &frame.tile_stats.buf, n)?,
        })
    }

    /// The bin lists of the last frame, read back: each bin's items (for tests).
    pub fn bin_lists(&self, ctx: &GpuContext, frame: &Frame) -> Result<Vec<Vec<u32>>> {
        let p = &frame.p;
        let bins = (p.bins_x * p.bins_y) as usize;
        if p.n_items == 0 {
            return Ok(vec![Vec::new(); bins]);
        }
        let cells = bins * p.chunks as usize + 1;
        let offsets: Vec<u32> = ctx.read_back("ui offsets", &frame.offsets.buf, cells)?;
        let total = offsets[cells - 1] as usize;
        let list: Vec<u32> = ctx.read_back("ui lists", &frame.list.buf, total)?;
        Ok((0..bins)
            .map(|b| {
                let s = offsets[b * p.chunks as usize] as usize;
                let e = offsets[(b + 1) * p.chunks as usize] as usize;
                list[s..e].to_vec()
            })
            .collect())
    }

    /// Render a scene into an image (a convenience: a frame, an output buffer, a read-back).
    pub fn render_to_image(&self, ctx: &GpuContext, scene: &Scene) -> Result<image::RgbaImage> {
        let mut frame = self.frame(ctx)?;
        self.render_frame_to_image(ctx, &mut frame, scene)
    }

    /// [`UiRenderer::render_to_image`] as a future, for the web (where a read-back cannot
    /// block): the frame's pixels as RGBA8 and, as [`UiRenderer::check_frame`] would, an
    /// error if a bin list outgrew its room.
    pub async fn render_to_image_async(
        &self,
        ctx: &GpuContext,
        scene: &Scene,
    ) -> Result<image::RgbaImage> {
        let mut frame = self.frame(ctx)?;
        self.upload(ctx, &mut frame, scene)?;
        frame_fits(ctx, "pixel", scene.width, scene.height, 4)?;
        let n = scene.width as usize * scene.height as usize;
        let out = ctx.storage_poisoned("ui pixels", n)?;
        self.target_buffer(ctx, &mut frame, &out)?;
        let mut result = Ok(());
        ctx.submit_checked("compositing a frame", |enc| {
            result = self.record(&frame, enc)
        })?;
        result?;
        let px = ctx.read_back_async::<u32>("ui pixels", &out, n);
        let status = ctx.read_back_async::<u32>("ui status", &frame.status, 1);
        let (px, status) = (px.await?, status.await?);
        if status[0] != 0 {
            return Err(UiError::Overflow {
                needed: status[0],
                capacity: frame.p.capacity,
            });
        }
        let bytes: Vec<u8> = px.iter().flat_map(|p| p.to_le_bytes()).collect();
        image::RgbaImage::from_raw(scene.width, scene.height, bytes)
            .ok_or_else(|| UiError::Invalid("pixel count".into()))
    }

    /// [`UiRenderer::render_to_image`] in a frame of the caller's (kept for its statistics).
    pub fn render_frame_to_image(
        &self,
        ctx: &GpuContext,
        frame: &mut Frame,
        scene: &Scene,
    ) -> Result<image::RgbaImage> {
        self.upload(ctx, frame, scene)?;
        frame_fits(ctx, "pixel", scene.width, scene.height, 4)?;
        let n = scene.width as usize * scene.height as usize;
        let out = ctx.storage_poisoned("ui pixels", n)?;
        self.target_buffer(ctx, frame, &out)?;
        let mut result = Ok(());
        ctx.submit_checked("compositing a frame", |enc| {
            result = self.record(frame, enc)
        })?;
        result?;
        let px: Vec<u32> = ctx.read_back("ui pixels", &out, n)?;
        self.check_frame(ctx, frame)?;
        let bytes: Vec<u8> = px.iter().flat_map(|p| p.to_le_bytes()).collect();
        image::RgbaImage::from_raw(scene.width, scene.height, bytes)
            .ok_or_else(|| UiError::Invalid("pixel count".into()))
    }
}

/// Whether a frame of `w × h` pixels, `per_pixel` bytes each, fits one buffer binding of this
/// adapter: an error saying the largest frame that does (issue 32: a 16384 × 16384 render
/// ended in wgpu's raw validation text).
fn frame_fits(ctx: &GpuContext, what: &str, w: u32, h: u32, per_pixel: u64) -> Result<()> {
    let limits = ctx.device.limits();
    let most = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    let need = u64::from(w) * u64::from(h) * per_pixel;
    if need <= most {
        return Ok(());
    }
    let side = ((most / per_pixel) as f64).sqrt() as u64;
    Err(UiError::Invalid(format!(
        "a {w} x {h} frame needs a {} MiB {what} buffer, and this adapter binds at most {} MiB \
         (a frame of at most {} pixels, {side} x {side} square): render a smaller size",
        need >> 20,
        most >> 20,
        most / per_pixel
    )))
}

/// The fine pass's slices of the items, in draw order, each within `budget` loop iterations
/// for any tile (counted as if every item of the slice touched it): `[first, end, flags, 0]`,
/// flags 1 on the first slice and 2 on the last. One slice when the scene fits. An item that
/// alone is over the budget (a clip chain thousands deep) is an error: no split draws it.
fn fine_slices(scene: &Scene, budget: u32) -> Result<Vec<[u32; 4]>> {
    use crate::records::{CLIP_WORDS, ITEM_WORDS, SHADOW_SAMPLES, clip_word, flag, kind, word};
    let budget = u64::from(budget);
    let clips = scene.clips.len() / CLIP_WORDS;
    // Each clip's chain depth (a parent is always pushed before its children).
    let mut depth = vec![0u64; clips + 1];
    for c in 0..clips {
        let parent = scene.clips[c * CLIP_WORDS + clip_word::PARENT] as usize;
        depth[c + 1] = depth[parent] + 1;
    }
    let n = scene.items.len() / ITEM_WORDS;
    let mut out = Vec::new();
    let (mut first, mut used) = (0usize, PASS_LOOPS);
    for i in 0..n {
        let rec = &scene.items[i * ITEM_WORDS..][..ITEM_WORDS];
        let head = rec[word::KIND];
        let mut cost = ITEM_LOOPS + depth[rec[word::CLIP] as usize];
        if head & 0xff == kind::SHADOW {
            cost += u64::from(SHADOW_SAMPLES);
        } else if head & flag::GRADIENT != 0 {
            cost += u64::from(scene.gradients[rec[word::FILL] as usize + 5]);
        }
        if cost + PASS_LOOPS > budget {
            return Err(UiError::Invalid(format!(
                "item {i} takes up to {cost} loop iterations a pixel (its clip chain is {} \
                 deep), over this adapter's budget of {budget} for a fine pass (software \
                 adapters end a shader's loops after 65 535 iterations); nest fewer clips, or \
                 render on a GPU",
                depth[rec[word::CLIP] as usize]
            )));
        }
        if used + cost > budget {
            out.push([first as u32, i as u32, 0, 0]);
            (first, used) = (i, PASS_LOOPS);
        }
        used += cost;
    }
    out.push([first as u32, n as u32, 0, 0]);
    out[0][2] |= 1;
    let last = out.len() - 1;
    out[last][2] |= 2;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Clip, Rect};
    use crate::{BoxShadow, Fill, LinearGradient};

    /// The slices cover the items in order, none over the budget, none that could have taken
    /// the next item; the first and last are flagged; an item alone over the budget is an
    /// error naming it.
    #[test]
    fn slices_cover_the_items_within_the_budget() {
        let mut rng = fastrand::Rng::with_seed(83);
        let mut s = Scene::new(50, 40).unwrap();
        let mut costs = Vec::new();
        let mut depth = 0u64;
        for i in 0..3000 {
            match rng.u32(..6) {
                0 if depth < 300 => {
                    // Each a little inside the last: the chain grows by one.
                    let d = depth as f32 * 0.01;
                    s.push_clip(&Clip {
                        x: 1.0 + d,
                        y: 1.0 + d,
                        w: 40.0 - 2.0 * d,
                        h: 30.0 - 2.0 * d,
                        radius: [2.0; 4],
                    })
                    .unwrap();
                    depth += 1;
                    continue;
                }
                1 if depth > 0 => {
                    s.pop_clip().unwrap();
                    depth -= 1;
                    continue;
                }
                2 => {
                    s.shadow(&BoxShadow {
                        x: 3.0,
                        y: 3.0,
                        w: 9.0,
                        h: 9.0,
                        radius: [1.0; 4],
                        offset: [0.0, 1.0],
                        blur: 3.0,
                        spread: 0.0,
                        color: [0, 0, 0, 100],
                        opacity: 1.0,
                    })
                    .unwrap();
                    costs.push(ITEM_LOOPS + depth + u64::from(records::SHADOW_SAMPLES));
                }
                3 => {
                    let stops = 2 + i % 5;
                    let fill = Fill::Linear(LinearGradient {
                        start: [0.0, 0.0],
                        end: [9.0, 9.0],
                        stops: (0..stops)
                            .map(|k| (k as f32 / (stops - 1) as f32, [k as u8, 0, 0, 255]))
                            .collect(),
                    });
                    s.rect(&Rect::new(2.0, 2.0, 9.0, 9.0, fill)).unwrap();
                    costs.push(ITEM_LOOPS + depth + stops as u64);
                }
                _ => {
                    s.rect(&Rect::new(2.0, 2.0, 9.0, 9.0, [9, 9, 9, 255]))
                        .unwrap();
                    costs.push(ITEM_LOOPS + depth);
                }
            }
        }
        for _ in 0..depth {
            s.pop_clip().unwrap();
        }
        let n = costs.len() as u32;
        for budget in [400u32, 1000, 5000, 100_000] {
            let slices = fine_slices(&s, budget).unwrap();
            assert_eq!(slices[0][0], 0);
            assert_eq!(slices.last().unwrap()[1], n);
            assert_eq!(slices.len() == 1, budget == 100_000, "budget {budget}");
            for (k, sl) in slices.iter().enumerate() {
                let flags = u32::from(k == 0) + 2 * u32::from(k == slices.len() - 1);
                assert_eq!(sl[2], flags, "budget {budget} slice {k}");
                assert!(sl[0] < sl[1], "budget {budget}: slice {k} is empty");
                if k > 0 {
                    assert_eq!(sl[0], slices[k - 1][1], "budget {budget}: a gap at {k}");
                }
                let used: u64 = costs[sl[0] as usize..sl[1] as usize].iter().sum();
                assert!(PASS_LOOPS + used <= u64::from(budget), "budget {budget}");
                if sl[1] < n {
                    assert!(PASS_LOOPS + used + costs[sl[1] as usize] > u64::from(budget));
                }
            }
        }
        let worst = costs.iter().max().unwrap();
        let e = fine_slices(&s, (PASS_LOOPS + worst - 1) as u32)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("loop iterations") && e.contains("clip chain"),
            "{e}"
        );
    }
}
