// What the three traversal kernels share (their CPU port is reference.rs): the buffers, a
// ray's task state, the watertight ray/triangle test, the slab test, one round of the
// while-while traversal, and the hit record. A kernel file supplies `stack_push` and
// `stack_pop` (trace/private_stack.wgsl, or the global stacks of trace/compacted.wgsl) and
// sets `lane_id`. Needs STACK, ANY_HIT, DIAGNOSTICS, PATHS, sg_ballot, ballot_first,
// ballot_count.
#import shared/ballot
#import trace/paths

// x: rays, y: stack slots (invocations of the grid), z: rays a lane of the persistent kernels
// may fetch in all (0xffffffff: no limit; see subgroup_budget), w: unused.
@group(0) @binding(0) var<uniform> params: vec4<u32>;
// Nodes, four vec4 each (bvh.rs: both children's boxes, their references in the w's).
@group(0) @binding(1) var<storage, read> nodes: array<vec4<f32>>;
// Triangles in leaf order, three vec4 each; the mesh index in the first w.
@group(0) @binding(2) var<storage, read> tris: array<vec4<f32>>;
// Rays, two vec4 each: origin and tmin, direction and tmax.
@group(0) @binding(3) var<storage, read> rays: array<vec4<f32>>;
// Closest hits: t, prim, u, v (bits).
@group(0) @binding(4) var<storage, read_write> hits: array<vec4<u32>>;
// Any hit: 1 or 0 a ray.
@group(0) @binding(5) var<storage, read_write> occluded: array<u32>;
// [0] ray counter, [1] stack overflow flag, [2] active lanes of node tests, [3] node test
// steps, [4] active lanes of triangle tests, [5] triangle test steps, [6] rays (paths)
// finished, [7] rays given up (one walk past the loop budget). Cleared before a run.
@group(0) @binding(6) var<storage, read_write> work: array<atomic<u32>>;
// The rest list (ADR-0091): [0] its length, then the rays the persistent and compacted kernels
// handed on when their loop budget ran out (software adapters only; else one word).
@group(0) @binding(9) var<storage, read_write> rest_list: array<atomic<u32>>;
// x: the loop iterations a subgroup may spend in one dispatch, net of handing on (u32 max: no
// budget); y: 1 in the rest pass.
@group(0) @binding(10) var<uniform> limits: vec4<u32>;

const EMPTY: u32 = 0xffffffffu;
// 1 + 2^-20: the slab test's far end is stretched by it (reference.rs: ROBUST).
const ROBUST: f32 = 1.00000095367431640625;
const TINY: f32 = 1e-30;
// The persistent kernels' loop runs in chunks of this many iterations inside an outer loop.
const LOOP_CHUNK: u32 = 4096u;
// Prepended by the host (tracer.rs, their one source): NODE_STEPS, the inner nodes a round
// visits at most (then it stops at the node, the next round goes on), and ROUND_COST, the loop
// iterations a round of any kernel may take at most, nested loops included (its own, NODE_STEPS
// nodes, a leaf's 16 triangles, the compaction's five and the loops around it). llvmpipe ends
// every loop of a shader once it has taken 65 535 iterations in all, counted over all its loops
// for each subgroup (ADR-0091): the kernels check that a round at that price still fits
// limits.x, and then count what the round cost the subgroup (round_cost).

// Loop iterations a round costs besides its node and triangle loops.
const ROUND_OVERHEAD: u32 = 16u;

// What a round cost the subgroup: the slowest lane's node steps and triangles (the loops run
// until every lane leaves them), the rest of the round; a subgroup of one lane may share
// llvmpipe's vector with others, so it counts the most a round can cost. Call in
// subgroup-uniform control flow.
fn round_cost(size: u32, cost: vec2<u32>) -> u32 {
    if (size == 1u) {
        return ROUND_COST;
    }
    return ROUND_OVERHEAD + sg_max_u32(cost.x) + sg_max_u32(cost.y);
}

// Call last, in subgroup-uniform control flow: this invocation finished `n` rays (paths); one
// atomic a subgroup adds them to work[6], which the host checks against the rays. (Not a
// workgroup count: the workgroup stacks may take all of the workgroup memory.)
fn end_counting(lane: u32, n: u32) {
    let s = sg_add_u32(n);
    if (lane == 0u && s > 0u) {
        atomicAdd(&work[6], s);
    }
}

// Room for one more round under the budget, `spent` so far.
fn within_budget(spent: u32) -> bool {
    return spent <= limits.x - ROUND_COST;
}

// A ray (path) this dispatch cannot finish: into the rest list, for the rest pass.
fn hand_on(ray: u32) {
    let at = atomicAdd(&rest_list[0], 1u);
    atomicStore(&rest_list[1u + at], ray);
}

// The rays a subgroup of the persistent kernels may fetch before it stops fetching (the host
// sets the budget so that the grid's budgets together cover every ray): unlimited on GPUs;
// on llvmpipe, whose subgroups run one after another and whose loops end after 65535
// iterations in all, a subgroup that took every ray was cut off with rays in flight
// (ADR-0052).
fn subgroup_budget(size: u32) -> u32 {
    if (params.z >= 0xffffffffu / size) {
        return 0xffffffffu;
    }
    return params.z * size;
}

struct Task {
    o: vec3<f32>,
    tmin: f32,
    d: vec3<f32>,
    // The closest hit's distance so far (tmax to begin with).
    t: f32,
    // The closest triangle's leaf position, or EMPTY.
    best: u32,
    // The reference being worked on; EMPTY when the ray is done.
    cur: u32,
    // Entries on the traversal stack.
    sp: u32,
    // The stack's slot (trace/compacted.wgsl; the others ignore it).
    slot: u32,
    // The ray's index (PATHS: the path's).
    ray: u32,
    // PATHS (trace/paths.wgsl): the path's throughput, radiance, random state and bounces.
    thr: vec3<f32>,
    rad: vec3<f32>,
    rng: u32,
    bounce: u32,
}

var<private> lane_id: u32;
// Diagnostics: this invocation's active lanes counted, and steps (counted by the first active
// lane of each step), for node and triangle tests.
var<private> diag: vec4<u32>;

fn start(ray: u32, slot: u32) -> Task {
    if (PATHS) {
        return start_path(ray, slot);
    }
    let a = rays[2u * ray];
    let b = rays[2u * ray + 1u];
    return Task(a.xyz, a.w, b.xyz, b.w, EMPTY, 0u, 0u, slot, ray, vec3<f32>(0.0), vec3<f32>(0.0), 0u, 0u);
}

// A task whose traversal just ended: the ray's result written (ray tracing), or the path's
// next segment (PATHS; its radiance written when it ends). Returns the task, cur EMPTY when
// its work is done.
fn ray_done(task: Task) -> Task {
    if (PATHS) {
        return next_segment(task);
    }
    finish(task);
    return task;
}

// `b` where `take`, else `a`, field by field. The kernels replace a lane's task this way
// rather than by assigning the struct inside a branch that only some lanes take: lavapipe
// (Mesa 22-23 llvmpipe) was seen to apply such a divergent struct store to other lanes of the
// subgroup too, losing their rays (ADR-0052).
fn pick(a: Task, b: Task, take: bool) -> Task {
    return Task(
        select(a.o, b.o, take),
        select(a.tmin, b.tmin, take),
        select(a.d, b.d, take),
        select(a.t, b.t, take),
        select(a.best, b.best, take),
        select(a.cur, b.cur, take),
        select(a.sp, b.sp, take),
        select(a.slot, b.slot, take),
        select(a.ray, b.ray, take),
        select(a.thr, b.thr, take),
        select(a.rad, b.rad, take),
        select(a.rng, b.rng, take),
        select(a.bounce, b.bounce, take),
    );
}

// Count one test (which: 0 node, 1 triangle) of the lanes that reach this point together.
fn count_active(which: u32) {
    if (DIAGNOSTICS) {
        let b = sg_ballot(true);
        let first = u32(ballot_first(b));
        if (which == 0u) {
            diag.x += 1u;
            diag.y += select(0u, 1u, lane_id == first);
        } else {
            diag.z += 1u;
            diag.w += select(0u, 1u, lane_id == first);
        }
    }
}

fn flush_diagnostics() {
    if (DIAGNOSTICS && any(diag != vec4<u32>(0u))) {
        atomicAdd(&work[2], diag.x);
        atomicAdd(&work[3], diag.y);
        atomicAdd(&work[4], diag.z);
        atomicAdd(&work[5], diag.w);
    }
}

fn stack_overflowed() {
    atomicOr(&work[1], 1u);
}

fn is_leaf(r: u32) -> bool {
    return (r & 0x80000000u) != 0u;
}

// The per-ray part of the watertight test (Woop, Benthin, Wald 2013).
struct Shear {
    kx: u32,
    ky: u32,
    kz: u32,
    s: vec3<f32>,
}

fn comp(v: vec3<f32>, k: u32) -> f32 {
    return select(select(v.z, v.y, k == 1u), v.x, k == 0u);
}

fn shear_of(d: vec3<f32>) -> Shear {
    let a = abs(d);
    var kz = select(0u, 1u, a.y > a.x);
    kz = select(kz, 2u, a.z > max(a.x, a.y));
    var kx = (kz + 1u) % 3u;
    var ky = (kx + 1u) % 3u;
    let dz = comp(d, kz);
    if (dz < 0.0) {
        let k = kx;
        kx = ky;
        ky = k;
    }
    return Shear(kx, ky, kz, vec3<f32>(comp(d, kx) / dz, comp(d, ky) / dz, 1.0 / dz));
}

// a·b − c·d, within 2 ulp: its sign is exact (Kahan's algorithm with fused multiply-adds).
fn diff_of_products(a: f32, b: f32, c: f32, d: f32) -> f32 {
    let w = c * d;
    let e = fma(-c, d, w);
    let f = fma(a, b, -w);
    return f + e;
}

fn sheared(p: vec3<f32>, o: vec3<f32>, sh: Shear) -> vec3<f32> {
    let q = p - o;
    let z = comp(q, sh.kz);
    return vec3<f32>(fma(-sh.s.x, z, comp(q, sh.kx)), fma(-sh.s.y, z, comp(q, sh.ky)), sh.s.z * z);
}

// The watertight test against the triangle at leaf position k: (t, u, v, 1) where the ray's
// line meets it (edges and corners included), w = 0 where it does not.
fn intersect(o: vec3<f32>, sh: Shear, k: u32) -> vec4<f32> {
    let a = sheared(tris[3u * k].xyz, o, sh);
    let b = sheared(tris[3u * k + 1u].xyz, o, sh);
    let c = sheared(tris[3u * k + 2u].xyz, o, sh);
    let u = diff_of_products(c.x, b.y, c.y, b.x);
    let v = diff_of_products(a.x, c.y, a.y, c.x);
    let w = diff_of_products(b.x, a.y, b.y, a.x);
    let outside = (u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0);
    let det = u + v + w;
    let t = fma(u, a.z, fma(v, b.z, w * c.z));
    let ok = !outside && det != 0.0;
    return select(vec4<f32>(0.0), vec4<f32>(t / det, v / det, w / det, 1.0), ok);
}

fn inv_dir(d: vec3<f32>) -> vec3<f32> {
    return 1.0 / select(d, vec3<f32>(TINY), abs(d) < vec3<f32>(TINY));
}

// The slab test: (entry, stretched exit); the box is met where entry <= exit.
fn slab(lo: vec3<f32>, hi: vec3<f32>, o: vec3<f32>, id: vec3<f32>, tmin: f32, tmax: f32) -> vec2<f32> {
    let t0 = (lo - o) * id;
    let t1 = (hi - o) * id;
    let n = min(t0, t1);
    let f = max(t0, t1);
    let tn = max(max(max(n.x, n.y), n.z), tmin);
    let tf = min(min(min(f.x, f.y), f.z), tmax);
    return vec2<f32>(tn, tf * ROBUST);
}

// One round of the while-while traversal: inner nodes until a leaf is reached (at most
// NODE_STEPS of them: a round may end at a node, the next goes on from it), then that leaf's
// triangles; `cur` is EMPTY afterwards when the ray is done.
// Returns the round's node steps and triangle tests (its loops' iterations).
fn trace_round(task: ptr<function, Task>) -> vec2<u32> {
    let o = (*task).o;
    let tmin = (*task).tmin;
    let id = inv_dir((*task).d);
    var t = (*task).t;
    var cur = (*task).cur;
    var steps = 0u;
    var tris = 0u;
    loop {
        if (cur == EMPTY || is_leaf(cur) || steps >= NODE_STEPS) {
            break;
        }
        steps += 1u;
        count_active(0u);
        let base = 4u * cur;
        let n0 = nodes[base];
        let n1 = nodes[base + 1u];
        let n2 = nodes[base + 2u];
        let n3 = nodes[base + 3u];
        let r0 = bitcast<u32>(n0.w);
        let r1 = bitcast<u32>(n1.w);
        let s0 = slab(n0.xyz, n1.xyz, o, id, tmin, t);
        let s1 = slab(n2.xyz, n3.xyz, o, id, tmin, t);
        let h0 = r0 != EMPTY && s0.x <= s0.y;
        let h1 = r1 != EMPTY && s1.x <= s1.y;
        if (h0 && h1) {
            let swap = s1.x < s0.x;
            stack_push(task, select(r1, r0, swap));
            cur = select(r0, r1, swap);
        } else if (h0) {
            cur = r0;
        } else if (h1) {
            cur = r1;
        } else {
            cur = stack_pop(task);
        }
    }
    // A leaf reached (not a node where the round's NODE_STEPS ran out).
    if (cur != EMPTY && is_leaf(cur)) {
        let sh = shear_of((*task).d);
        let first = cur & 0x07ffffffu;
        let end = first + ((cur >> 27u) & 15u) + 1u;
        tris = end - first;
        var best = (*task).best;
        for (var k = first; k < end; k += 1u) {
            count_active(1u);
            let h = intersect(o, sh, k);
            if (h.w != 0.0 && h.x >= tmin && h.x < t) {
                t = h.x;
                best = k;
            }
        }
        (*task).best = best;
        if (ANY_HIT && best != EMPTY) {
            cur = EMPTY;
        } else {
            cur = stack_pop(task);
        }
    }
    (*task).t = t;
    (*task).cur = cur;
    return vec2<u32>(steps, tris);
}

// Write the ray's result: the closest hit (barycentrics computed once, here) or whether
// anything was hit.
fn finish(task: Task) {
    // One exit, no early returns (ADR-0052: returns inside functions called in a loop were
    // lowered wrongly by llvmpipe).
    if (ANY_HIT) {
        occluded[task.ray] = select(0u, 1u, task.best != EMPTY);
    } else if (task.best == EMPTY) {
        hits[task.ray] = vec4<u32>(0x7f800000u, EMPTY, 0u, 0u);
    } else {
        let h = intersect(task.o, shear_of(task.d), task.best);
        let prim = bitcast<u32>(tris[3u * task.best].w);
        hits[task.ray] = vec4<u32>(bitcast<u32>(task.t), prim, bitcast<u32>(h.y), bitcast<u32>(h.z));
    }
}
