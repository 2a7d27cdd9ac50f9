// Path tracing on the traversal kernels (PATHS; CPU twin: paths.rs). Task `ray` is a path's
// index p: it starts from primary ray p / spp; each time its ray's traversal ends,
// `next_segment` shades the hit: a miss adds the sky (times the path's throughput) and ends
// the path; a hit scatters, diffuse (cosine-weighted; albedo 0.75, 0.70, 0.65) or, on one
// triangle in four (by a hash of its index), glossy (the mirror direction plus a quarter of a
// cosine-weighted one; albedo 0.9), and the task goes on with the new ray in the same lane.
// After `bounces` scatterings the path ends; from the third on Russian roulette ends it with
// probability 1 − max(throughput) (at least 5 % go on), the survivors' throughput divided by
// the chance. An ended path writes its radiance and bounce count. Random numbers: a PCG hash
// chain from the path's index and the seed, the same on the CPU.

// x: samples a pixel, y: most bounces, z: seed, w: the offset of a new ray's origin from the
// surface (f32 bits).
@group(0) @binding(8) var<uniform> path: vec4<u32>;

fn pcg(v: u32) -> u32 {
    let s = v * 747796405u + 2891336453u;
    let w = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
    return (w >> 22u) ^ w;
}

fn rand01(s: ptr<function, u32>) -> f32 {
    *s = pcg(*s);
    return f32(*s >> 8u) * (1.0 / 16777216.0);
}

fn sky(d: vec3<f32>) -> vec3<f32> {
    let y = normalize(d).y;
    return mix(vec3<f32>(1.0, 1.0, 1.0), vec3<f32>(0.5, 0.7, 1.0), 0.5 * (y + 1.0));
}

// The task of path p: primary ray p / spp, throughput 1, no radiance.
fn start_path(p: u32, slot: u32) -> Task {
    let r = p / path.x;
    let a = rays[2u * r];
    let b = rays[2u * r + 1u];
    return Task(a.xyz, a.w, b.xyz, b.w, EMPTY, 0u, 0u, slot, p, vec3<f32>(1.0), vec3<f32>(0.0), pcg(p ^ pcg(path.z)), 0u);
}

// The path after its ray's traversal ended: the next ray's task, or (cur EMPTY) the ended path,
// whose radiance is written.
fn next_segment(task: Task) -> Task {
    var t = task;
    var s = t.rng;
    var end = false;
    if (t.best == EMPTY) {
        t.rad += t.thr * sky(t.d);
        end = true;
    } else {
        let k = t.best;
        let a = tris[3u * k].xyz;
        let b = tris[3u * k + 1u].xyz;
        let c = tris[3u * k + 2u].xyz;
        var n = normalize(cross(b - a, c - a));
        if (dot(n, t.d) > 0.0) {
            n = -n;
        }
        let p = t.o + t.d * t.t;
        let shiny = (pcg(bitcast<u32>(tris[3u * k].w)) & 3u) == 0u;
        let up = select(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), abs(n.x) > 0.9);
        let e1 = normalize(cross(n, up));
        let e2 = cross(n, e1);
        let u1 = rand01(&s);
        let u2 = rand01(&s);
        let r = sqrt(u1);
        let phi = 6.2831855 * u2;
        let hemi = e1 * (r * cos(phi)) + e2 * (r * sin(phi)) + n * sqrt(max(1.0 - u1, 0.0));
        var dir = hemi;
        if (shiny) {
            let dn = normalize(t.d);
            dir = normalize(dn - 2.0 * dot(dn, n) * n + 0.25 * hemi);
            t.thr *= 0.9;
        } else {
            t.thr *= vec3<f32>(0.75, 0.7, 0.65);
        }
        t.bounce += 1u;
        if (dot(dir, n) <= 0.0 || t.bounce >= path.y) {
            end = true;
        }
        if (!end && t.bounce >= 3u) {
            let q = clamp(max(t.thr.x, max(t.thr.y, t.thr.z)), 0.05, 1.0);
            if (rand01(&s) >= q) {
                end = true;
            } else {
                t.thr /= q;
            }
        }
        t.o = p + n * bitcast<f32>(path.w);
        t.d = dir;
        t.tmin = 0.0;
        t.t = bitcast<f32>(0x7f800000u);
        t.best = EMPTY;
        t.cur = 0u;
        t.sp = 0u;
    }
    t.rng = s;
    if (end) {
        t.cur = EMPTY;
        hits[t.ray] = vec4<u32>(bitcast<u32>(t.rad.x), bitcast<u32>(t.rad.y), bitcast<u32>(t.rad.z), t.bounce);
    }
    return t;
}
