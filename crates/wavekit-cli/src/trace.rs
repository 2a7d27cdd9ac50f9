//! `wavekit trace`: render a mesh (`-o OUT.png`), trace the caller's rays (`--rays-in` /
//! `--hits-out`), or benchmark (`wavekit trace bench`), on wavekit-trace.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, Subcommand, ValueEnum};
use wavekit::GpuContext;
use wavekit_trace::rays::{Camera, RayKind};
use wavekit_trace::{Bvh, GpuBvh, Hit, KernelKind, Mesh, Ray, TraceConfig, Tracer};

use crate::error::CliError;
use crate::output::file_err;

/// `wavekit trace`.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct TraceCmd {
    #[command(subcommand)]
    bench: Option<TraceSub>,
    #[command(flatten)]
    render: RenderArgs,
}

#[derive(Subcommand)]
enum TraceSub {
    /// Build times (CPU SAH, GPU LBVH) and rays/s of every kernel on primary, shadow, diffuse
    /// and random rays, with subgroup utilisation; writes the rays and hits as .npy for the
    /// Embree peer (peer/embree/trace.py).
    Bench(BenchArgs),
}

#[derive(Args)]
struct RenderArgs {
    /// A .obj or .ply file, or a procedural scene: proc:soup:N, proc:thin:N, proc:plane:K,
    /// proc:grid:K (optionally :SEED).
    mesh: Option<String>,
    /// Render a shaded image to this PNG.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Rays of the render: eye rays, shadow rays toward a light, or one diffuse bounce.
    #[arg(long, value_enum, default_value = "primary")]
    rays: RenderRays,
    /// Traversal kernel.
    #[arg(long, value_enum, default_value = "compacted")]
    kernel: KernelArg,
    /// BVH builder: binned SAH on the CPU or LBVH on the GPU.
    #[arg(long, value_enum, default_value = "sah")]
    builder: BuilderArg,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, default_value = "800x600", value_parser = parse_size)]
    size: (u32, u32),
    /// Trace these rays instead: float32 [N, 8] (origin xyz, tmin, direction xyz, tmax), each
    /// with a finite origin, a finite non-zero direction and tmin <= tmax (tmax may be inf).
    #[arg(long, requires = "hits_out")]
    rays_in: Option<PathBuf>,
    /// Where the hits of --rays-in go: a structured array of N records t <f4, prim <u4,
    /// u <f4, v <f4 (a miss: t = inf, prim = 0xFFFFFFFF); with --any-hit one bool a ray.
    #[arg(long, requires = "rays_in")]
    hits_out: Option<PathBuf>,
    /// Any hit (occlusion) instead of the closest, for --rays-in (a render's shadow rays
    /// are any-hit rays already: --rays shadow).
    #[arg(long, requires = "rays_in")]
    any_hit: bool,
    /// Path trace the image with this many paths a pixel (diffuse and glossy surfaces under a
    /// sky, Russian roulette from the third bounce) instead of --rays.
    #[arg(long)]
    spp: Option<u32>,
    /// Path tracing: most bounces a path.
    #[arg(long, default_value_t = 8)]
    bounces: u32,
    /// Path tracing: the random numbers' seed.
    #[arg(long, default_value_t = 1)]
    seed: u32,
    /// Path tracing: no ground under the mesh (by default a square ten times its size at the
    /// bottom of its bounds, y up).
    #[arg(long)]
    no_ground: bool,
}

#[derive(Args)]
struct BenchArgs {
    /// Meshes (files or procedural scenes) [default: .meshes/dragon.ply where present, and
    /// proc:grid:40 (512,000 triangles)].
    #[arg(long, value_delimiter = ',')]
    meshes: Vec<String>,
    /// Image size of the primary, shadow and diffuse rays.
    #[arg(long, default_value = "1920x1080", value_parser = parse_size)]
    size: (u32, u32),
    /// Random rays.
    #[arg(long, default_value_t = 4 << 20)]
    random: usize,
    /// How each case is measured.
    #[command(flatten)]
    protocol: crate::bench::ProtocolArgs,
    /// Kernels.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [KernelArg::Baseline, KernelArg::Persistent, KernelArg::Compacted])]
    kernels: Vec<KernelArg>,
    /// Write the rays, hits and meshes as .npy here (for the Embree peer) and results.json.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print JSON lines instead of text.
    #[arg(long)]
    json: bool,
    /// Measure path tracing instead (paths a second of each kernel, this many paths a pixel
    /// of the primary rays at --size).
    #[arg(long)]
    spp: Option<u32>,
    /// Path tracing: most bounces a path.
    #[arg(long, default_value_t = 8)]
    bounces: u32,
    /// Path tracing: no ground under the meshes.
    #[arg(long)]
    no_ground: bool,
    /// The persistent and compacted kernels keep their traversal stacks in workgroup memory.
    #[arg(long)]
    workgroup_stacks: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum RenderRays {
    Primary,
    Shadow,
    Diffuse,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum KernelArg {
    Baseline,
    Persistent,
    Compacted,
}

impl KernelArg {
    fn kind(self) -> KernelKind {
        match self {
            KernelArg::Baseline => KernelKind::Baseline,
            KernelArg::Persistent => KernelKind::Persistent,
            KernelArg::Compacted => KernelKind::Compacted,
        }
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum BuilderArg {
    Sah,
    Lbvh,
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("'{s}': give WIDTHxHEIGHT, e.g. 800x600 (each 1 to 16384)");
    let (w, h) = s.split_once('x').ok_or_else(bad)?;
    let (w, h): (u32, u32) = (w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?);
    if !(1..=16384).contains(&w) || !(1..=16384).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}

impl From<wavekit_trace::TraceError> for CliError {
    fn from(e: wavekit_trace::TraceError) -> Self {
        match e {
            wavekit_trace::TraceError::Gpu(e) => CliError::Wavekit(e),
            other => CliError::Usage(other.to_string()),
        }
    }
}

/// Run `wavekit trace`.
/// `wavekit trace`: the inputs and outputs are read and checked before `ctx` gives a device.
pub fn run<C: std::ops::Deref<Target = GpuContext>>(
    cmd: TraceCmd,
    ctx: impl FnOnce() -> Result<C, CliError>,
) -> Result<(), CliError> {
    if let Some(TraceSub::Bench(b)) = cmd.bench {
        return bench(&*ctx()?, &b);
    }
    let a = cmd.render;
    let Some(spec) = a.mesh.as_deref() else {
        return Err(CliError::Usage(
            "give a mesh: wavekit trace MESH -o OUT.png, or wavekit trace MESH --rays-in \
             RAYS.npy --hits-out HITS.npy, or wavekit trace bench"
                .into(),
        ));
    };
    if a.output.is_none() && a.rays_in.is_none() {
        return Err(CliError::Usage(
            "say what to do with the mesh: -o OUT.png renders it, --rays-in RAYS.npy \
             --hits-out HITS.npy traces your rays"
                .into(),
        ));
    }
    // Every output checked before the work: its folder, its type, and no two the same file
    // nor the rays' file.
    let mut outputs: Vec<(&str, &Path)> = Vec::new();
    if let Some(o) = &a.output {
        rgb_output(o)?;
        outputs.push(("the image (-o)", o));
    }
    if let Some(h) = &a.hits_out {
        outputs.push(("the hits (--hits-out)", h));
    }
    crate::output::check_outputs(&outputs)?;
    if let (Some(rin), Some(h)) = (&a.rays_in, &a.hits_out) {
        crate::output::check_output(rin, h)?;
    }
    let mesh = load(spec)?;
    // Path tracing puts the mesh on a ground (the camera still frames the mesh alone).
    let scene = if a.spp.is_some() && !a.no_ground {
        wavekit_trace::paths::with_ground(&mesh)?
    } else {
        mesh.clone()
    };
    let rays = match &a.rays_in {
        Some(rin) if a.hits_out.is_some() => Some(read_rays(rin)?),
        _ => None,
    };
    let ctx = ctx()?;
    let ctx = &*ctx;
    let bvh = build(ctx, &scene, a.builder)?;
    if let (Some(rays), Some(hout)) = (rays, &a.hits_out) {
        let config = TraceConfig {
            any_hit: a.any_hit,
            ..TraceConfig::new(a.kernel.kind())
        };
        eprintln!(
            "tracing {} rays ({}) ...",
            rays.len(),
            a.kernel.kind().name()
        );
        let tracer = Tracer::new(ctx, config)?;
        let start = Instant::now();
        if a.any_hit {
            let occ = tracer.occluded_slice(ctx, &bvh, &rays)?;
            write_bools(hout, &occ)?;
        } else {
            let hits = tracer.trace_slice(ctx, &bvh, &rays)?;
            write_hits(hout, &hits)?;
        }
        eprintln!(
            "traced in {:.2} s; wrote {}",
            start.elapsed().as_secs_f64(),
            hout.display()
        );
    }
    if let (Some(out), Some(spp)) = (&a.output, a.spp) {
        let (w, h) = a.size;
        let settings = wavekit_trace::paths::PathSettings {
            spp,
            bounces: a.bounces,
            seed: a.seed,
            epsilon: wavekit_trace::rays::epsilon(&mesh),
        };
        let img = path_trace(ctx, &mesh, &bvh, a.kernel.kind(), (w, h), &settings)?;
        save_rgb(out, &img, (w, h))?;
        println!("wrote {} ({w} x {h}, {spp} paths a pixel)", out.display());
        return Ok(());
    }
    if let Some(out) = &a.output {
        let (w, h) = a.size;
        let img = render(ctx, &mesh, &bvh, a.kernel.kind(), a.rays, (w, h))?;
        save_rgb(out, &img, (w, h))?;
        println!("wrote {} ({w} x {h})", out.display());
    }
    Ok(())
}

fn load(spec: &str) -> Result<Mesh, CliError> {
    eprintln!("loading {spec} ...");
    let start = Instant::now();
    let mesh = Mesh::load(spec)?;
    eprintln!(
        "  {} triangles, {} vertices ({:.2} s)",
        mesh.len(),
        mesh.positions.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(mesh)
}

fn build(ctx: &GpuContext, mesh: &Mesh, builder: BuilderArg) -> Result<GpuBvh, CliError> {
    let start = Instant::now();
    let bvh = if builder == BuilderArg::Sah {
        eprintln!("building the BVH on the CPU (binned SAH) ...");
        Bvh::build_cpu(mesh).upload(ctx)?
    } else {
        eprintln!("building the BVH on the GPU (LBVH) ...");
        let lbvh = wavekit_trace::lbvh::Lbvh::new(ctx)?;
        let g = lbvh.build(ctx, mesh)?;
        let depth = Bvh::read_back(ctx, &g)?.stats().depth;
        GpuBvh {
            depth: Some(depth),
            ..g
        }
    };
    eprintln!("  done in {:.2} s", start.elapsed().as_secs_f64());
    Ok(bvh)
}

/// A path-traced RGB image of `mesh` (wavekit_trace::paths): `settings.spp` paths a pixel
/// from the framing camera's primary rays, on the GPU.
fn path_trace(
    ctx: &GpuContext,
    mesh: &Mesh,
    bvh: &GpuBvh,
    kernel: KernelKind,
    (w, h): (u32, u32),
    settings: &wavekit_trace::paths::PathSettings,
) -> Result<Vec<u8>, CliError> {
    settings.check()?;
    let primary = Camera::framing(mesh, w, h).primary();
    let n = u64::from(w) * u64::from(h) * u64::from(settings.spp);
    eprintln!(
        "tracing {n} paths ({} a pixel, up to {} bounces, {}) ...",
        settings.spp,
        settings.bounces,
        kernel.name()
    );
    let start = Instant::now();
    let tracer = Tracer::new(ctx, TraceConfig::paths(kernel))?;
    let rb = ctx.storage_from("trace primary rays", &primary)?;
    ctx.check_binding("trace paths", n * 16)?;
    let out = ctx.storage_uninit("trace paths", n * 16)?;
    let bound = tracer.bind_paths(ctx, bvh, &rb, &out, w * h, settings)?;
    ctx.submit(|e| bound.record(e));
    bound.check(ctx)?;
    let words: Vec<u32> = ctx.read_back("trace paths", &out, 4 * n as usize)?;
    let radiance: Vec<[f32; 3]> = words
        .chunks(4)
        .map(|c| [c[0], c[1], c[2]].map(f32::from_bits))
        .collect();
    eprintln!("  done in {:.2} s", start.elapsed().as_secs_f64());
    Ok(wavekit_trace::paths::image(&radiance, w, h, settings.spp))
}

/// A shaded RGB image of `mesh`: primary hits lit by a point light; with shadow rays, points
/// the light cannot see keep only the ambient term; with a diffuse bounce, the ambient term is
/// the sky where the bounce escapes.
fn render(
    ctx: &GpuContext,
    mesh: &Mesh,
    bvh: &GpuBvh,
    kernel: KernelKind,
    kind: RenderRays,
    (w, h): (u32, u32),
) -> Result<Vec<u8>, CliError> {
    let cam = Camera::framing(mesh, w, h);
    let primary = cam.primary();
    eprintln!(
        "tracing {} primary rays ({}) ...",
        primary.len(),
        kernel.name()
    );
    let closest = Tracer::new(ctx, TraceConfig::new(kernel))?;
    let hits = closest.trace_slice(ctx, bvh, &primary)?;
    let per_pixel = |rays_from: &[u32], flags: &[bool]| {
        let mut v = vec![false; primary.len()];
        for (&i, &f) in rays_from.iter().zip(flags) {
            v[i as usize] = f;
        }
        v
    };
    let img = match kind {
        RenderRays::Primary => wavekit_trace::rays::shade(mesh, &cam, &primary, &hits, None, None),
        RenderRays::Shadow => {
            let (rays, from) = wavekit_trace::rays::shadow(mesh, &primary, &hits);
            eprintln!("tracing {} shadow rays ...", rays.len());
            let any = Tracer::new(
                ctx,
                TraceConfig {
                    any_hit: true,
                    ..TraceConfig::new(kernel)
                },
            )?;
            let occ = any.occluded_slice(ctx, bvh, &rays)?;
            let shadowed = per_pixel(&from, &occ);
            wavekit_trace::rays::shade(mesh, &cam, &primary, &hits, Some(&shadowed), None)
        }
        RenderRays::Diffuse => {
            let (rays, from) = wavekit_trace::rays::diffuse(mesh, &primary, &hits, 7);
            eprintln!("tracing {} diffuse rays ...", rays.len());
            let bounce = closest.trace_slice(ctx, bvh, &rays)?;
            let escaped: Vec<bool> = bounce.iter().map(|h| !h.is_hit()).collect();
            let escaped = per_pixel(&from, &escaped);
            wavekit_trace::rays::shade(mesh, &cam, &primary, &hits, None, Some(&escaped))
        }
    };
    Ok(img)
}

/// Read float32 rays of shape [N, 8].
fn read_rays(path: &Path) -> Result<Vec<Ray>, CliError> {
    let file = std::fs::File::open(path).map_err(|e| file_err(path, e))?;
    let npy = npyz::NpyFile::new(std::io::BufReader::new(file))
        .map_err(|e| file_err(path, format!("not a readable .npy file: {e}")))?;
    let shape = npy.shape().to_vec();
    let dtype = match npy.dtype() {
        npyz::DType::Plain(t) => t.to_string(),
        other => format!("{other:?}"),
    };
    if shape.len() != 2 || shape[1] != 8 || dtype != "<f4" || npy.order() != npyz::Order::C {
        return Err(file_err(
            path,
            format!(
                "shape {shape:?} of {dtype}: rays are float32 [N, 8] in C order (origin xyz, \
                 tmin, direction xyz, tmax); e.g. np.ascontiguousarray(r, dtype='<f4')"
            ),
        ));
    }
    crate::npy::check_holds(path, &shape, 4)?;
    let v: Vec<f32> = npy
        .into_vec()
        .map_err(|e| file_err(path, format!("reading the data: {e}")))?;
    let rays: Vec<Ray> = bytemuck::cast_slice(&v).to_vec();
    let bad: Vec<(usize, String)> = rays
        .iter()
        .enumerate()
        .filter_map(|(i, r)| ray_problem(r).map(|p| (i, p)))
        .collect();
    if let Some((i, problem)) = bad.first() {
        return Err(file_err(
            path,
            format!(
                "ray {i} (row {i}) {problem}; {} of {} rays are like that. Every ray needs a \
                 finite origin, a finite non-zero direction and tmin <= tmax (tmax may be inf)",
                bad.len(),
                rays.len()
            ),
        ));
    }
    Ok(rays)
}

/// What is wrong with a ray that could only miss or give NaN: None for a good one.
fn ray_problem(r: &Ray) -> Option<String> {
    if r.origin.iter().any(|c| !c.is_finite()) {
        return Some(format!("has origin {:?}", r.origin));
    }
    if r.origin
        .iter()
        .any(|c| c.abs() > wavekit_trace::mesh::MAX_COORDINATE)
    {
        return Some(format!(
            "has origin {:?}, beyond ±2^40 (about 1.1e12) where the f32 intersection test \
             overflows",
            r.origin
        ));
    }
    if r.dir.iter().any(|c| !c.is_finite()) || r.dir == [0.0; 3] {
        return Some(format!("has direction {:?}", r.dir));
    }
    if r.tmin.is_nan() || r.tmax.is_nan() || r.tmin > r.tmax || r.tmin == f32::INFINITY {
        return Some(format!("has tmin {} and tmax {}", r.tmin, r.tmax));
    }
    None
}

/// A .npy v1.0 header for `descr` and `shape`, padded to 64 bytes.
fn npy_header(descr: &str, shape: &[usize]) -> Vec<u8> {
    let shape = match shape {
        [n] => format!("({n},)"),
        s => format!(
            "({})",
            s.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut dict = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}");
    let total = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat(total.next_multiple_of(64) - total));
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((dict.len() as u16).to_le_bytes());
    out.extend(dict.as_bytes());
    out
}

/// Write a file whole or not at all (a temporary file beside it, renamed into place).
fn write_file(path: &Path, header: &[u8], data: &[u8]) -> Result<(), CliError> {
    crate::output::write_atomic(path, |tmp| {
        let mut f =
            std::io::BufWriter::new(std::fs::File::create(tmp).map_err(|e| file_err(path, e))?);
        f.write_all(header)
            .and_then(|_| f.write_all(data))
            .and_then(|_| f.flush())
            .map_err(|e| file_err(path, e))
    })
}

/// The format of an RGB render's output, checked before any work.
fn rgb_output(path: &Path) -> Result<image::ImageFormat, CliError> {
    use image::ImageFormat as F;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match F::from_path(path) {
        Ok(F::Pnm) if ext != "ppm" => Err(file_err(
            path,
            "a render is RGB: name a .ppm (or .png), not a gray or other PNM file",
        )),
        Ok(f @ (F::Png | F::Jpeg | F::Tiff | F::Bmp | F::Pnm | F::WebP | F::Tga | F::Qoi)) => Ok(f),
        _ => Err(file_err(
            path,
            "not an image type wavekit writes: name a .png (or .jpg, .tif, .bmp, .ppm, .webp, \
             .tga, .qoi)",
        )),
    }
}

/// Save an RGB render whole or not at all, in the format its name says.
fn save_rgb(path: &Path, img: &[u8], (w, h): (u32, u32)) -> Result<(), CliError> {
    let format = rgb_output(path)?;
    crate::output::write_atomic(path, |tmp| {
        image::save_buffer_with_format(tmp, img, w, h, image::ColorType::Rgb8, format)
            .map_err(|e| file_err(path, e))
    })
}

/// Hits as a structured array: t <f4, prim <u4, u <f4, v <f4.
pub fn write_hits(path: &Path, hits: &[Hit]) -> Result<(), CliError> {
    let h = npy_header(
        "[('t', '<f4'), ('prim', '<u4'), ('u', '<f4'), ('v', '<f4')]",
        &[hits.len()],
    );
    write_file(path, &h, bytemuck::cast_slice(hits))
}

/// One bool a ray ('|b1').
pub fn write_bools(path: &Path, v: &[bool]) -> Result<(), CliError> {
    let bytes: Vec<u8> = v.iter().map(|&b| u8::from(b)).collect();
    write_file(path, &npy_header("'|b1'", &[v.len()]), &bytes)
}

fn write_f32(path: &Path, v: &[f32], cols: usize) -> Result<(), CliError> {
    write_file(
        path,
        &npy_header("'<f4'", &[v.len() / cols, cols]),
        bytemuck::cast_slice(v),
    )
}

fn write_u32(path: &Path, v: &[u32], cols: usize) -> Result<(), CliError> {
    write_file(
        path,
        &npy_header("'<u4'", &[v.len() / cols, cols]),
        bytemuck::cast_slice(v),
    )
}

fn bench(ctx: &GpuContext, a: &BenchArgs) -> Result<(), CliError> {
    if a.spp.is_some() {
        return bench_paths(ctx, a);
    }
    let mut meshes = a.meshes.clone();
    if meshes.is_empty() {
        let dragon = Path::new(".meshes/dragon.ply");
        if dragon.exists() {
            meshes.push(dragon.display().to_string());
        } else {
            eprintln!(
                "note: .meshes/dragon.ply is absent (scripts/fetch-meshes.sh .meshes fetches it); \
                 benchmarking the procedural scene only"
            );
        }
        meshes.push("proc:grid:40".into());
    }
    let cfg = wavekit_bench::trace::BenchConfig {
        width: a.size.0,
        height: a.size.1,
        random_rays: a.random,
        protocol: a.protocol.protocol()?,
        kernels: a.kernels.iter().map(|k| k.kind()).collect(),
        workgroup_stacks: a.workgroup_stacks,
        ..Default::default()
    };
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).map_err(|e| file_err(dir, e))?;
    }
    let clock = crate::bench::clock_reader(ctx);
    let mut all = serde_json::Map::new();
    let mut builds = Vec::new();
    let mut traces = Vec::new();
    for spec in &meshes {
        let mesh = load(spec)?;
        let name = mesh_name(spec);
        eprintln!("[{name}] building both BVHs, timing the GPU build ...");
        let (b, host) = wavekit_bench::trace::builds(ctx, &name, &mesh, &cfg, &*clock)?;
        print_line(a.json, "build", &b, || {
            format!(
                "{name}: {} triangles; CPU SAH {:.1} ms (SAH cost {:.1}, depth {}); GPU LBVH \
                 {:.2} ms (SAH cost {:.1}, depth {}); SM clock {} MHz",
                b.triangles,
                b.cpu_ms,
                b.cpu.sah,
                b.cpu.depth,
                b.gpu_ms,
                b.gpu.sah,
                b.gpu.depth,
                crate::bench::clock_text(b.clock, b.clock_low)
            )
        })?;
        builds.push(b);
        let bvh = host.upload(ctx)?;
        if let Some(dir) = &a.out {
            let v: Vec<f32> = mesh.positions.iter().flatten().copied().collect();
            let f: Vec<u32> = mesh.triangles.iter().flatten().copied().collect();
            write_f32(&dir.join(format!("{name}-vertices.npy")), &v, 3)?;
            write_u32(&dir.join(format!("{name}-faces.npy")), &f, 3)?;
        }
        eprintln!("[{name}] making rays ...");
        let sets = wavekit_bench::trace::ray_sets(ctx, &mesh, &bvh, &cfg)?;
        for set in &sets {
            if let Some(dir) = &a.out {
                let stem = format!("{name}-{}", set.kind.name());
                let rays: &[f32] = bytemuck::cast_slice(&set.rays);
                write_f32(&dir.join(format!("{stem}-rays.npy")), rays, 8)?;
                if set.kind == RayKind::Shadow {
                    write_bools(&dir.join(format!("{stem}-hits.npy")), &set.occluded)?;
                } else {
                    write_hits(&dir.join(format!("{stem}-hits.npy")), &set.hits)?;
                }
            }
            let mut progress = |m: String| eprintln!("  {m}");
            let rs = wavekit_bench::trace::trace_kernels(
                ctx,
                &name,
                &bvh,
                set,
                &cfg,
                &*clock,
                &mut progress,
            )?;
            for r in &rs {
                print_line(a.json, "trace", r, || {
                    let u = r.utilisation.map_or(String::new(), |u| {
                        format!(
                            "; utilisation nodes {:.0} %, triangles {:.0} % (width {})",
                            100.0 * u.nodes(),
                            100.0 * u.tris(),
                            u.width
                        )
                    });
                    format!(
                        "{name} {:>8} {:>10}: {:>9} rays  {:>9.1} us  {:>8.1} Mrays/s  \
                         clock {} MHz  spread {:.1} %{u}{}",
                        r.rays.name(),
                        r.kernel.name(),
                        r.count,
                        r.median_ns / 1e3,
                        r.rays_per_s / 1e6,
                        crate::bench::clock_text(r.clock, r.clock_low),
                        100.0 * r.spread,
                        if r.mismatches > 0 {
                            format!("  MISMATCHES {}", r.mismatches)
                        } else {
                            String::new()
                        }
                    )
                })?;
            }
            traces.extend(rs);
        }
    }
    all.insert("adapter".into(), serde_json::to_value(&ctx.summary)?);
    all.insert("builds".into(), serde_json::to_value(&builds)?);
    all.insert("traces".into(), serde_json::to_value(&traces)?);
    if let Some(dir) = &a.out {
        let p = dir.join("results.json");
        std::fs::write(&p, serde_json::to_string_pretty(&all)?).map_err(|e| file_err(&p, e))?;
        eprintln!("wrote {}", p.display());
    }
    let bad: usize = traces.iter().map(|t| t.mismatches).sum();
    if bad > 0 {
        return Err(CliError::CheckFailed(format!(
            "{bad} rays hit differently from the baseline kernel"
        )));
    }
    Ok(())
}

fn print_line<T: serde::Serialize>(
    json: bool,
    what: &str,
    v: &T,
    text: impl FnOnce() -> String,
) -> Result<(), CliError> {
    if json {
        let mut o = serde_json::to_value(v)?;
        if let Some(m) = o.as_object_mut() {
            m.insert("record".into(), what.into());
        }
        println!("{}", serde_json::to_string(&o)?);
    } else {
        println!("{}", text());
    }
    Ok(())
}

/// A file-name-safe name for a mesh spec (`dragon`, `proc-grid-40`).
fn mesh_name(spec: &str) -> String {
    let base = Path::new(spec)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|_| !spec.starts_with("proc:"))
        .unwrap_or(spec);
    base.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The demo's render: a grid of instances traced by every kernel at 320 × 240, checked against
/// the baseline kernel and (for a sample of pixels) the brute-force reference, written to a PNG
/// in `dir`. Returns the checks made (name, passed) and the PNG's path.
pub fn demo_render(
    ctx: &GpuContext,
    dir: &Path,
) -> Result<(Vec<(String, bool)>, PathBuf), CliError> {
    let mesh = Mesh::load("proc:grid:6")?;
    let bvh = Bvh::build_cpu(&mesh).upload(ctx)?;
    let (w, h) = (320, 240);
    let cam = Camera::framing(&mesh, w, h);
    let primary = cam.primary();
    let sample: Vec<Ray> = primary.iter().step_by(97).copied().collect();
    let want = wavekit_trace::reference::brute_force(&mesh, &sample);
    let mut checks = Vec::new();
    for kernel in KernelKind::ALL {
        let t = Tracer::new(ctx, TraceConfig::new(kernel))?;
        let got = t.trace_slice(ctx, &bvh, &sample)?;
        let ok = got
            .iter()
            .zip(&want)
            .all(|(g, w)| wavekit_bench::trace::same_hit(g, w));
        checks.push((
            format!(
                "trace: {} kernel, {} rays at {} triangles equal the brute-force reference",
                kernel.name(),
                sample.len(),
                mesh.len()
            ),
            ok,
        ));
    }
    let img = render(
        ctx,
        &mesh,
        &bvh,
        KernelKind::Compacted,
        RenderRays::Shadow,
        (w, h),
    )?;
    let path = dir.join("wavekit-trace-demo.png");
    image::save_buffer(&path, &img, w, h, image::ColorType::Rgb8)
        .map_err(|e| file_err(&path, e))?;
    Ok((checks, path))
}

/// `wavekit trace bench --spp N`: path tracing's GPU time with each kernel (the benchmark
/// protocol), paths a second, the share of paths of each length, and (a run with diagnostics)
/// the subgroup utilisation.
fn bench_paths(ctx: &GpuContext, a: &BenchArgs) -> Result<(), CliError> {
    let spp = a.spp.unwrap_or(1);
    let meshes = if a.meshes.is_empty() {
        vec![".meshes/dragon.ply".to_string()]
    } else {
        a.meshes.clone()
    };
    let protocol = a.protocol.protocol()?;
    let clock = crate::bench::clock_reader(ctx);
    let (w, h) = a.size;
    for spec in &meshes {
        let mesh = load(spec)?;
        let name = mesh_name(spec);
        let scene = if a.no_ground {
            mesh.clone()
        } else {
            wavekit_trace::paths::with_ground(&mesh)?
        };
        let bvh = Bvh::build_cpu(&scene).upload(ctx)?;
        let settings = wavekit_trace::paths::PathSettings {
            spp,
            bounces: a.bounces,
            seed: 1,
            epsilon: wavekit_trace::rays::epsilon(&mesh),
        };
        let primary = Camera::framing(&mesh, w, h).primary();
        let rb = ctx.storage_from("trace primary rays", &primary)?;
        let n = u64::from(w) * u64::from(h) * u64::from(spp);
        ctx.check_binding("trace paths", n * 16)?;
        let out = ctx.storage_uninit("trace paths", n * 16)?;
        let mut first: Option<Vec<u32>> = None;
        for kernel in a.kernels.iter().map(|k| k.kind()) {
            let config = TraceConfig {
                workgroup_stacks: a.workgroup_stacks && kernel != KernelKind::Baseline,
                ..TraceConfig::paths(kernel)
            };
            let tracer = Tracer::new(ctx, config)?;
            let bound = tracer.bind_paths(ctx, &bvh, &rb, &out, w * h, &settings)?;
            ctx.submit(|e| bound.record(e));
            bound.check(ctx)?;
            let words: Vec<u32> = ctx.read_back("trace paths", &out, 4 * n as usize)?;
            // Every kernel traces the same paths: their results agree.
            let agree = match &first {
                None => {
                    first = Some(words.clone());
                    1.0
                }
                Some(f) => {
                    let same = f.iter().zip(&words).filter(|(x, y)| x == y).count();
                    same as f64 / f.len().max(1) as f64
                }
            };
            let mut lengths = vec![0u64; a.bounces as usize + 1];
            for c in words.chunks(4) {
                lengths[(c[3] as usize).min(a.bounces as usize)] += 1;
            }
            let diag = Tracer::new(
                ctx,
                TraceConfig {
                    diagnostics: true,
                    ..config
                },
            )?;
            let counted = diag.bind_paths(ctx, &bvh, &rb, &out, w * h, &settings)?;
            ctx.submit(|e| counted.record(e));
            counted.check(ctx)?;
            let util = counted.utilisation(ctx)?.map_or(0.0, |u| u.all());
            let mut cases = vec![wavekit_bench::protocol::Case::new("paths", |e| {
                bound.record(e)
            })];
            let m =
                wavekit_bench::protocol::measure(ctx, &mut cases, &protocol, &*clock, &mut |m| {
                    eprintln!("{m}")
                })?;
            let ms = m[0].timing.median_ns / 1e6;
            let row = serde_json::json!({
                "mesh": name, "ground": !a.no_ground, "width": w, "height": h, "spp": spp, "bounces": a.bounces,
                "kernel": kernel.name(), "workgroup_stacks": config.workgroup_stacks, "paths": n, "ms": ms,
                "mpaths_per_s": n as f64 / ms / 1e3, "utilisation": util,
                "same_as_first_kernel": agree, "lengths": lengths,
                "spread": m[0].spread,
                "clock": crate::bench::clock_text(m[0].clock, m[0].clock_low),
            });
            if a.json {
                println!("{row}");
            } else {
                println!(
                    "{name} {w}x{h} spp {spp} bounces {}: {:<10} {:>9.2} ms {:>8.1} M paths/s \
                     utilisation {:.2} (same paths as the first kernel: {:.4}); lengths {:?}; \
                     SM clock {}",
                    a.bounces,
                    kernel.name(),
                    ms,
                    n as f64 / ms / 1e3,
                    util,
                    agree,
                    lengths,
                    crate::bench::clock_text(m[0].clock, m[0].clock_low)
                );
            }
        }
    }
    Ok(())
}
