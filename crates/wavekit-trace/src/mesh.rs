//! Triangle meshes: OBJ (`tobj`) and PLY (`ply-rs-bw`) files, and procedural scenes named
//! `proc:KIND:SIZE[:SEED]` (`soup`, `thin`, `plane`, `grid`).
//!
//! A mesh is a list of vertex positions and a list of triangles (three vertex indices each).
//! Faces with more than three corners are fanned into triangles by the loaders. Every vertex
//! must be finite and within ±2^40 ([`MAX_COORDINATE`]), the mesh not smaller than 2^-32
//! ([`MIN_SCALE`]), and every index in range: a file that breaks any is an error naming the
//! file and the element, not a mesh with holes or one that rays miss.

use std::path::Path;

use crate::{Result, TraceError};

/// The largest coordinate a mesh or a ray's origin may have, 2^40 (about 1.1e12): past
/// about 2^45 the f32 intersection test overflows and rays miss without a word.
pub const MAX_COORDINATE: f32 = 1_099_511_627_776.0;

/// The smallest largest-coordinate of a mesh that is not all zeros, 2^-32 (about 2.3e-10):
/// below it the intersection test's products reach f32's subnormals and lose precision, and
/// below about 2^-60 they underflow.
pub const MIN_SCALE: f32 = 1.0 / 4_294_967_296.0;

/// A triangle mesh: positions and triangles (indices into the positions).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Triangles: three indices into `positions` each. A triangle's index in this list is its
    /// primitive id in hits.
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// A mesh from positions and triangles, checked (finite positions, indices in range, fewer
    /// than 2^27 triangles: the BVH's leaf references hold 27 bits).
    pub fn new(positions: Vec<[f32; 3]>, triangles: Vec<[u32; 3]>) -> Result<Self> {
        let m = Self {
            positions,
            triangles,
        };
        m.check("mesh")?;
        Ok(m)
    }

    /// A mesh of separate triangles (each three consecutive corners).
    pub fn from_soup(corners: &[[[f32; 3]; 3]]) -> Result<Self> {
        let positions: Vec<[f32; 3]> = corners.iter().flatten().copied().collect();
        let triangles = (0..corners.len() as u32)
            .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
            .collect();
        Self::new(positions, triangles)
    }

    /// Number of triangles.
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    /// Whether the mesh has no triangles.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// The three corners of triangle `i`.
    pub fn corners(&self, i: usize) -> [[f32; 3]; 3] {
        let t = self.triangles[i];
        [
            self.positions[t[0] as usize],
            self.positions[t[1] as usize],
            self.positions[t[2] as usize],
        ]
    }

    /// Bounds of all vertices used by triangles: (lo, hi); an empty mesh gives the unit cube.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for t in &self.triangles {
            for &v in t {
                let p = self.positions[v as usize];
                for a in 0..3 {
                    lo[a] = lo[a].min(p[a]);
                    hi[a] = hi[a].max(p[a]);
                }
            }
        }
        if self.triangles.is_empty() {
            return ([0.0; 3], [1.0; 3]);
        }
        (lo, hi)
    }

    fn check(&self, what: &str) -> Result<()> {
        if self.triangles.len() >= 1 << 27 {
            return Err(TraceError::Mesh(format!(
                "{what}: {} triangles; at most 2^27 - 1 (134217727) fit the BVH's leaf references",
                self.triangles.len()
            )));
        }
        if let Some((i, p)) = self
            .positions
            .iter()
            .enumerate()
            .find(|(_, p)| p.iter().any(|c| !c.is_finite()))
        {
            return Err(TraceError::Mesh(format!(
                "{what}: vertex {i} is {p:?}; every coordinate must be finite"
            )));
        }
        if let Some((i, p)) = self
            .positions
            .iter()
            .enumerate()
            .find(|(_, p)| p.iter().any(|c| c.abs() > MAX_COORDINATE))
        {
            return Err(TraceError::Mesh(format!(
                "{what}: vertex {i} is {p:?}; coordinates beyond ±2^40 (about 1.1e12) overflow \
                 the tracer's f32 intersection test: scale the mesh down (by a power of two, \
                 which is exact)"
            )));
        }
        let largest = self
            .positions
            .iter()
            .flatten()
            .fold(0f32, |m, c| m.max(c.abs()));
        if largest > 0.0 && largest < MIN_SCALE {
            return Err(TraceError::Mesh(format!(
                "{what}: the largest coordinate is {largest:e}; a mesh this small (under 2^-32, \
                 about 2.3e-10) underflows the tracer's f32 intersection test: scale it up (by \
                 a power of two, which is exact)"
            )));
        }
        let n = self.positions.len();
        if let Some((i, t)) = self
            .triangles
            .iter()
            .enumerate()
            .find(|(_, t)| t.iter().any(|&v| v as usize >= n))
        {
            return Err(TraceError::Mesh(format!(
                "{what}: triangle {i} is {t:?} but there are {n} vertices (indices from 0)"
            )));
        }
        Ok(())
    }

    /// Load a mesh: a path ending in `.obj` or `.ply`, or a procedural name (see [`procedural`]).
    pub fn load(spec: &str) -> Result<Self> {
        if spec.starts_with("proc:") {
            return procedural(spec);
        }
        let path = Path::new(spec);
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("obj") => load_obj(path),
            Some("ply") => load_ply(path),
            _ => Err(TraceError::Mesh(format!(
                "{spec}: not a mesh this crate reads; give a .obj or .ply file, or a procedural \
                 scene such as proc:soup:100000, proc:thin:20000, proc:plane:64, proc:grid:8"
            ))),
        }
    }
}

fn file_error(path: &Path, message: impl std::fmt::Display) -> TraceError {
    TraceError::Mesh(format!("{}: {message}", path.display()))
}

/// Read an OBJ file's triangles (every object, faces triangulated as fans; normals, texture
/// coordinates and materials are ignored).
pub fn load_obj(path: &Path) -> Result<Mesh> {
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ignore_points: true,
        ignore_lines: true,
    };
    let (models, _) = tobj::load_obj(path, &options).map_err(|e| {
        // tobj names no line: find the first one that does not parse (issue 32).
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(io) => return file_error(path, io),
        };
        match first_bad_obj_line(&text) {
            Some((n, line, why)) => file_error(path, format!("line {n}: '{line}': {why}")),
            None => file_error(path, format!("{e} (tobj)")),
        }
    })?;
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for m in &models {
        let base = positions.len() as u32;
        let p = &m.mesh.positions;
        positions.extend(p.chunks_exact(3).map(|c| [c[0], c[1], c[2]]));
        let count = (p.len() / 3) as u32;
        for (f, t) in m.mesh.indices.chunks_exact(3).enumerate() {
            if t.iter().any(|&v| v >= count) {
                return Err(file_error(
                    path,
                    format!(
                        "object '{}', face {f}: vertex index out of range ({} vertices)",
                        m.name, count
                    ),
                ));
            }
            triangles.push([base + t[0], base + t[1], base + t[2]]);
        }
    }
    if triangles.is_empty() {
        return Err(file_error(
            path,
            format!(
                "no faces: {} vertices and no triangles, so there is nothing to trace (an OBJ \
                 mesh needs 'f' lines; is this an OBJ file?)",
                positions.len()
            ),
        ));
    }
    let mesh = Mesh {
        positions,
        triangles,
    };
    mesh.check(&path.display().to_string())?;
    Ok(mesh)
}

/// The first line of an OBJ text whose vertex or face does not parse: (line number from 1,
/// the line, what is wrong). Only the statements the loader uses are checked.
fn first_bad_obj_line(text: &str) -> Option<(usize, String, String)> {
    let mut vertices = 0i64;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let mut words = line.split_whitespace();
        let shown = || {
            let s: String = raw.chars().take(60).collect();
            if raw.chars().count() > 60 {
                format!("{s}…")
            } else {
                s
            }
        };
        let bad = |why: String| Some((i + 1, shown(), why));
        match words.next() {
            Some("v") => {
                let xyz: Vec<&str> = words.collect();
                if xyz.len() < 3 || xyz.iter().any(|w| w.parse::<f32>().is_err()) {
                    return bad("a vertex is 'v x y z' (three numbers)".into());
                }
                vertices += 1;
            }
            Some("f") => {
                let corners: Vec<&str> = words.collect();
                if corners.len() < 3 {
                    return bad("a face has three corners or more".into());
                }
                for c in corners {
                    match c.split('/').next().unwrap_or("").parse::<i64>() {
                        Ok(0) | Err(_) => {
                            return bad(format!(
                                "corner '{c}': a corner is a vertex number from 1 (or negative, \
                                 from the last), optionally /texture/normal"
                            ));
                        }
                        Ok(k) if k > vertices || -k > vertices => {
                            return bad(format!(
                                "corner '{c}': only {vertices} vertices come before this line"
                            ));
                        }
                        Ok(_) => {}
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// Refuse a PLY header whose element counts the file cannot hold (every element takes at
/// least a byte after the header, in any format): the parser reserves room for each count
/// before it reads, and `element vertex 4294967295` in a 300-byte file asked for gigabytes.
fn check_ply_counts(bytes: &[u8]) -> std::result::Result<(), String> {
    let end = bytes
        .windows(10)
        .position(|w| w == b"end_header")
        .ok_or("no 'end_header' line: is this a PLY file?")?;
    let body = (bytes.len() - end) as u64;
    for line in bytes[..end].split(|&b| b == b'\n') {
        let line = String::from_utf8_lossy(line);
        let mut words = line.split_whitespace();
        if words.next() != Some("element") {
            continue;
        }
        let name = words.next().unwrap_or("");
        let count = words.next().unwrap_or("");
        match count.parse::<u64>() {
            Ok(n) if n <= body => {}
            Ok(n) => {
                return Err(format!(
                    "element '{name}' counts {n}, more than the {body} bytes after the header \
                     can hold (the file is cut short, or its header is wrong)"
                ));
            }
            Err(_) => {
                return Err(format!(
                    "element '{name}': its count '{count}' is not a number"
                ));
            }
        }
    }
    Ok(())
}

/// Read a PLY file (ASCII or binary): element `vertex` with properties `x`, `y`, `z` (any
/// numeric type) and element `face` with a list property `vertex_indices` or `vertex_index`
/// (polygons fanned into triangles).
pub fn load_ply(path: &Path) -> Result<Mesh> {
    use ply_rs_bw::parser::Parser;
    use ply_rs_bw::ply::{DefaultElement, Property};
    let bytes = std::fs::read(path).map_err(|e| file_error(path, e))?;
    check_ply_counts(&bytes).map_err(|e| file_error(path, e))?;
    let mut reader = std::io::Cursor::new(bytes);
    let ply = Parser::<DefaultElement>::new()
        .read_ply(&mut reader)
        .map_err(|e| file_error(path, format!("{e}")))?;
    let scalar = |p: &Property| -> Option<f64> {
        Some(match *p {
            Property::Char(v) => v.into(),
            Property::UChar(v) => v.into(),
            Property::Short(v) => v.into(),
            Property::UShort(v) => v.into(),
            Property::Int(v) => v.into(),
            Property::UInt(v) => v.into(),
            Property::Float(v) => v.into(),
            Property::Double(v) => v,
            _ => return None,
        })
    };
    let list = |p: &Property| -> Option<Vec<i64>> {
        Some(match p {
            Property::ListChar(v) => v.iter().map(|&x| x.into()).collect(),
            Property::ListUChar(v) => v.iter().map(|&x| x.into()).collect(),
            Property::ListShort(v) => v.iter().map(|&x| x.into()).collect(),
            Property::ListUShort(v) => v.iter().map(|&x| x.into()).collect(),
            Property::ListInt(v) => v.iter().map(|&x| x.into()).collect(),
            Property::ListUInt(v) => v.iter().map(|&x| x.into()).collect(),
            _ => return None,
        })
    };
    let vertices = ply
        .payload
        .get("vertex")
        .ok_or_else(|| file_error(path, "no element 'vertex'"))?;
    let mut positions = Vec::with_capacity(vertices.len());
    for (i, v) in vertices.iter().enumerate() {
        let mut p = [0f32; 3];
        for (a, name) in ["x", "y", "z"].iter().enumerate() {
            p[a] = v.get(*name).and_then(scalar).ok_or_else(|| {
                file_error(
                    path,
                    format!("element vertex {i}: no numeric property '{name}'"),
                )
            })? as f32;
        }
        positions.push(p);
    }
    let faces = ply
        .payload
        .get("face")
        .ok_or_else(|| file_error(path, "no element 'face'"))?;
    let mut triangles = Vec::with_capacity(faces.len());
    for (i, f) in faces.iter().enumerate() {
        let idx = f
            .get("vertex_indices")
            .or_else(|| f.get("vertex_index"))
            .and_then(list)
            .ok_or_else(|| {
                file_error(
                    path,
                    format!("element face {i}: no integer list 'vertex_indices'"),
                )
            })?;
        if idx.len() < 3 || idx.iter().any(|&v| v < 0 || v as usize >= positions.len()) {
            return Err(file_error(
                path,
                format!(
                    "element face {i}: corners {idx:?}; a face needs 3 or more indices below {}",
                    positions.len()
                ),
            ));
        }
        for k in 1..idx.len() - 1 {
            triangles.push([idx[0] as u32, idx[k] as u32, idx[k + 1] as u32]);
        }
    }
    if triangles.is_empty() {
        return Err(file_error(
            path,
            format!(
                "no faces: {} vertices and an empty element 'face', so there is nothing to trace",
                positions.len()
            ),
        ));
    }
    let mesh = Mesh {
        positions,
        triangles,
    };
    mesh.check(&path.display().to_string())?;
    Ok(mesh)
}

/// A procedural scene from its name, `proc:KIND:SIZE[:SEED]`:
///
/// - `soup:N` — N random triangles (edges up to 5 % of the unit cube) in the unit cube;
/// - `thin:N` — N long thin triangles (length about the cube, width 0.1 %), random directions;
/// - `plane:K` — a K × K grid of unit squares at z = 0, two triangles each, shared edges and
///   vertices exactly representable (rays aimed at them test watertightness);
/// - `grid:K` — a K × K × K grid of instances of one small closed shape (an octahedron of 8
///   triangles scaled and rotated per instance), flattened into triangles.
pub fn procedural(spec: &str) -> Result<Mesh> {
    let parts: Vec<&str> = spec.split(':').collect();
    let usage = || {
        TraceError::Mesh(format!(
            "{spec}: a procedural scene is proc:KIND:SIZE[:SEED] with KIND soup, thin, plane or \
             grid and SIZE a positive count (e.g. proc:soup:100000)"
        ))
    };
    if parts.len() < 3 || parts.len() > 4 || parts[0] != "proc" {
        return Err(usage());
    }
    let size: u32 = parts[2].parse().map_err(|_| usage())?;
    let seed: u64 = match parts.get(3) {
        Some(s) => s.parse().map_err(|_| usage())?,
        None => 1,
    };
    if size == 0 {
        return Err(usage());
    }
    let too_big = |n: u64| {
        (n >= 1 << 27).then(|| {
            TraceError::Mesh(format!(
                "{spec}: {n} triangles; at most 2^27 - 1 fit the BVH's leaf references"
            ))
        })
    };
    match parts[1] {
        // Checked before anything is made: 2^32 - 1 triangles would ask for 154 GB.
        "soup" => match too_big(u64::from(size)) {
            Some(e) => Err(e),
            None => soup(size, seed),
        },
        "thin" => match too_big(u64::from(size)) {
            Some(e) => Err(e),
            None => thin(size, seed),
        },
        "plane" => match too_big(2 * u64::from(size) * u64::from(size)) {
            Some(e) => Err(e),
            None => Ok(plane(size)),
        },
        "grid" => match too_big(8 * u64::from(size).pow(3)) {
            Some(e) => Err(e),
            None => grid(size, seed),
        },
        _ => Err(usage()),
    }
}

fn soup(n: u32, seed: u64) -> Result<Mesh> {
    let mut r = fastrand::Rng::with_seed(seed);
    let corners: Vec<[[f32; 3]; 3]> = (0..n)
        .map(|_| {
            let c = [r.f32(), r.f32(), r.f32()];
            let mut p = || {
                [
                    c[0] + (r.f32() - 0.5) * 0.05,
                    c[1] + (r.f32() - 0.5) * 0.05,
                    c[2] + (r.f32() - 0.5) * 0.05,
                ]
            };
            [p(), p(), p()]
        })
        .collect();
    Mesh::from_soup(&corners)
}

fn thin(n: u32, seed: u64) -> Result<Mesh> {
    let mut r = fastrand::Rng::with_seed(seed);
    let corners: Vec<[[f32; 3]; 3]> = (0..n)
        .map(|_| {
            let a = [r.f32(), r.f32(), r.f32()];
            let b = [r.f32(), r.f32(), r.f32()];
            let w = [
                (r.f32() - 0.5) * 0.002,
                (r.f32() - 0.5) * 0.002,
                (r.f32() - 0.5) * 0.002,
            ];
            [a, b, [b[0] + w[0], b[1] + w[1], b[2] + w[2]]]
        })
        .collect();
    Mesh::from_soup(&corners)
}

/// K × K unit squares at z = 0 from (0, 0) to (K, K), each split along its diagonal.
pub fn plane(k: u32) -> Mesh {
    let row = k + 1;
    let positions = (0..row * row)
        .map(|i| [(i % row) as f32, (i / row) as f32, 0.0])
        .collect();
    let mut triangles = Vec::with_capacity(2 * (k * k) as usize);
    for y in 0..k {
        for x in 0..k {
            let a = y * row + x;
            let (b, c, d) = (a + 1, a + row, a + row + 1);
            // Alternate the diagonal so that both orientations of shared edges occur.
            if (x + y) % 2 == 0 {
                triangles.push([a, b, d]);
                triangles.push([a, d, c]);
            } else {
                triangles.push([a, b, c]);
                triangles.push([b, d, c]);
            }
        }
    }
    Mesh {
        positions,
        triangles,
    }
}

fn grid(k: u32, seed: u64) -> Result<Mesh> {
    let mut r = fastrand::Rng::with_seed(seed);
    // An octahedron: 6 vertices, 8 faces, closed.
    let shape = [
        [1.0f32, 0.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, -1.0],
    ];
    let faces = [
        [0u32, 2, 4],
        [2, 1, 4],
        [1, 3, 4],
        [3, 0, 4],
        [2, 0, 5],
        [1, 2, 5],
        [3, 1, 5],
        [0, 3, 5],
    ];
    let mut positions = Vec::with_capacity((6 * k * k * k) as usize);
    let mut triangles = Vec::with_capacity((8 * k * k * k) as usize);
    let cell = 1.0 / k as f32;
    for z in 0..k {
        for y in 0..k {
            for x in 0..k {
                let base = positions.len() as u32;
                let s = cell * (0.2 + 0.25 * r.f32());
                let angle = r.f32() * std::f32::consts::TAU;
                let (sn, cs) = angle.sin_cos();
                let centre = [
                    (x as f32 + 0.5) * cell,
                    (y as f32 + 0.5) * cell,
                    (z as f32 + 0.5) * cell,
                ];
                for p in shape {
                    // Rotate about z, scale, move.
                    let q = [p[0] * cs - p[1] * sn, p[0] * sn + p[1] * cs, p[2]];
                    positions.push([
                        centre[0] + s * q[0],
                        centre[1] + s * q[1],
                        centre[2] + s * q[2],
                    ]);
                }
                for f in faces {
                    triangles.push([base + f[0], base + f[1], base + f[2]]);
                }
            }
        }
    }
    Mesh::new(positions, triangles)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Huge and tiny meshes (issue 32): scaled by a power of two from 2^-32 to 2^40, a scene
    /// gives the same hits with distances scaled exactly (a triangle near 3e38 or 1e18 was
    /// missed by every ray); beyond, the mesh is refused with a message, not rendered blank.
    #[test]
    fn meshes_at_any_accepted_scale_give_the_same_hits() {
        let base = procedural("proc:soup:3000:7").unwrap();
        let scaled = |e: i32| {
            let s = 2f32.powi(e);
            Mesh::new(
                base.positions.iter().map(|p| p.map(|c| c * s)).collect(),
                base.triangles.clone(),
            )
        };
        let hits = |m: &Mesh| {
            let rays = crate::rays::Camera::framing(m, 48, 40).primary();
            crate::reference::brute_force(m, &rays)
        };
        let unit = hits(&base);
        let count = unit.iter().filter(|h| h.is_hit()).count();
        assert!(count > 100, "the scene should be hit by many rays: {count}");
        for e in [-32, -21, 17, 39] {
            let m = scaled(e).unwrap();
            let h = hits(&m);
            for (i, (a, b)) in unit.iter().zip(&h).enumerate() {
                assert_eq!(a.prim, b.prim, "2^{e}: ray {i}");
                assert_eq!(a.t * 2f32.powi(e), b.t, "2^{e}: ray {i}");
            }
        }
        for e in [41, 60, 127, -33, -100] {
            let err = scaled(e).unwrap_err().to_string();
            assert!(err.contains("2^"), "2^{e}: {err}");
        }
        let zero = Mesh::new(vec![[0.0; 3]; 3], vec![[0, 1, 2]]).unwrap();
        assert_eq!(zero.len(), 1);
    }

    /// Fuzzing (issue 32): OBJ and PLY files of any bytes load or are refused, never panic:
    /// the corpus (`fuzz/corpus/obj`, `fuzz/corpus/ply`: valid meshes, indices out of range or
    /// negative, no faces, huge coordinates and counts, text) and mutations of it.
    #[test]
    fn fuzz_mesh_files() {
        let dir = tmp_dir("wavekit-fuzz-mesh-");
        for (target, load) in [
            ("obj", load_obj as fn(&Path) -> Result<Mesh>),
            ("ply", load_ply),
        ] {
            let file = dir.path().join(format!("m.{target}"));
            wavekit_harness::fuzz::fuzz(target, 5_000, |b| {
                std::fs::write(&file, b).unwrap();
                load(&file).is_ok()
            });
        }
    }

    /// A folder of the test's own, removed when the test ends, pass or fail.
    fn tmp_dir(prefix: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(prefix).tempdir().unwrap()
    }

    /// `text` as the file `name` in `dir`.
    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn obj_and_ply_read_the_same_quad() {
        let dir = tmp_dir("wavekit-trace-mesh-");
        let obj = write(
            &dir,
            "quad.obj",
            "# a quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n",
        );
        let m = load_obj(&obj).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m.positions.len(), 4);
        let ply = write(
            &dir,
            "quad.ply",
            "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n\
             property float z\nelement face 1\nproperty list uchar int vertex_indices\n\
             end_header\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n",
        );
        let p = load_ply(&ply).unwrap();
        assert_eq!(p, m);
        assert_eq!(Mesh::load(ply.to_str().unwrap()).unwrap(), m);
    }

    #[test]
    fn bad_files_name_the_file_and_the_element() {
        let dir = tmp_dir("wavekit-trace-mesh-");
        let e = load_obj(&write(&dir, "bad.obj", "v 0 0 0\nv 1 0 0\nf 1 2 9\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.obj"), "{e}");
        // OBJ errors give the line (issue 32: tobj names none).
        for (name, text, needle) in [
            (
                "bad-vertex.obj",
                "# a mesh\nv 0 0 0\nv 1 0 0\nv 0 1 x\nf 1 2 3\n",
                "line 4: 'v 0 1 x': a vertex is 'v x y z'",
            ),
            (
                "bad-corner.obj",
                "v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 a\n",
                "line 5: 'f 1 2 a': corner 'a'",
            ),
            (
                "far-corner.obj",
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n",
                "line 4: 'f 1 2 7': corner '7': only 3 vertices",
            ),
        ] {
            let e = load_obj(&write(&dir, name, text)).unwrap_err().to_string();
            assert!(e.contains(name) && e.contains(needle), "{name}: {e}");
        }
        let e = load_ply(&write(
            &dir,
            "bad.ply",
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n\
             property float z\nelement face 1\nproperty list uchar int vertex_indices\n\
             end_header\n0 0 0\n1 0 0\n1 1 0\n3 0 1 7\n",
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("bad.ply") && e.contains("face 0"), "{e}");
        let e = load_ply(&write(
            &dir,
            "garbled.ply",
            "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\nabc\n",
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("garbled.ply"), "{e}");
        let e = load_ply(&write(
            &dir,
            "huge.ply",
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty double x\nproperty double y\n\
             property double z\nelement face 1\nproperty list uchar int vertex_indices\n\
             end_header\n0 0 0\n1 1e300 0\n1 1 0\n3 0 1 2\n",
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("huge.ply") && e.contains("vertex 1"), "{e}");
        // Files with no triangles (text, comments, vertices alone, an empty PLY): an error,
        // not a blank picture.
        for (name, text) in [
            ("text.obj", "hello, world\nthis is not a mesh\n"),
            ("comments.obj", "# only\n# comments\n"),
            ("empty.obj", ""),
            ("points.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n"),
        ] {
            let e = load_obj(&write(&dir, name, text)).unwrap_err().to_string();
            assert!(e.contains(name) && e.contains("no faces"), "{name}: {e}");
        }
        for (name, vertices) in [("none.ply", 0), ("points.ply", 3)] {
            let rows = "0 0 0\n".repeat(vertices);
            let e = load_ply(&write(
                &dir,
                name,
                &format!(
                    "ply\nformat ascii 1.0\nelement vertex {vertices}\nproperty float x\n\
                     property float y\nproperty float z\nelement face 0\n\
                     property list uchar int vertex_indices\nend_header\n{rows}"
                ),
            ))
            .unwrap_err()
            .to_string();
            assert!(e.contains(name) && e.contains("no faces"), "{name}: {e}");
        }
        let e = Mesh::load("missing.obj").unwrap_err().to_string();
        assert!(e.contains("missing.obj"), "{e}");
        let e = Mesh::load("scene.stl").unwrap_err().to_string();
        assert!(e.contains(".obj or .ply"), "{e}");
    }

    #[test]
    fn procedural_scenes() {
        assert_eq!(procedural("proc:soup:100").unwrap().len(), 100);
        assert_eq!(procedural("proc:thin:50:7").unwrap().len(), 50);
        let p = procedural("proc:plane:4").unwrap();
        assert_eq!((p.len(), p.positions.len()), (32, 25));
        assert_eq!(procedural("proc:grid:3").unwrap().len(), 8 * 27);
        assert_ne!(
            procedural("proc:soup:10:1").unwrap(),
            procedural("proc:soup:10:2").unwrap()
        );
        for bad in [
            "proc:soup",
            "proc:cube:3",
            "proc:soup:0",
            "proc:soup:x",
            "proc:plane:20000",
        ] {
            assert!(procedural(bad).is_err(), "{bad}");
        }
        // Too many triangles: an error before anything is allocated (it used to abort asking
        // for 154 GB).
        for huge in ["proc:soup:4294967295", "proc:thin:134217728"] {
            let e = procedural(huge).unwrap_err().to_string();
            assert!(e.contains("at most 2^27 - 1"), "{huge}: {e}");
        }
    }
}
