//! CPU ports of the persistent and compacted kernels' lane arithmetic, run in lockstep at any
//! subgroup width (1 to 128), on the foundation's ports of `shared/ballot.wgsl` and
//! `subgroup/compact.wgsl` (`wavekit::sim::subgroup`): whole simulated runs of both kernels' loops, subgroups interleaved
//! round by round on one shared ray counter. Tests hold them to the brute-force reference and
//! check the invariants the GPU cannot show: every ray traced once, no two live tasks on one
//! stack slot, every loop ends.

use wavekit::sim::subgroup::{
    Ballot, ballot_count, ballot_count_below, ballot_of, compact_source, lanes_below,
};

use crate::bvh::{Bvh, EMPTY};
use crate::reference::{Hit, Ray, Task, Work};

/// CPU port of `trace/fetch.wgsl`: a subgroup's pool of claimed, unstarted rays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pool {
    /// The next unstarted ray of the current batch.
    pub next: u32,
    /// The batch's end.
    pub end: u32,
    /// Rays claimed so far.
    pub claimed: u32,
    /// No more claims.
    pub drained: bool,
}

impl Pool {
    /// `pool_done`.
    pub fn done(&self, n: u32) -> bool {
        self.drained && (self.next >= self.end || self.next >= n)
    }

    /// `take_rays`: the ray of each lane of `takers` (n or more: none), claiming a batch of at
    /// least `batch × width` from `counter` when the pool runs short and is not drained.
    #[allow(clippy::too_many_arguments)]
    pub fn take(
        &mut self,
        takers: Ballot,
        width: u32,
        n: u32,
        budget: u32,
        batch: u32,
        counter: &mut u32,
    ) -> Vec<u32> {
        let need = ballot_count(takers);
        let avail = self.end.saturating_sub(self.next);
        let p = *self;
        let mut base = 0;
        if need <= avail {
            self.next = p.next + need;
        } else if p.drained {
            self.next = p.end;
        } else {
            let b = (need - avail).max(width * batch);
            base = *counter;
            *counter += b;
            self.next = base + (need - avail);
            self.end = base + b;
            self.claimed = p.claimed + b;
            self.drained = base + b >= n || p.claimed + b >= budget;
        }
        (0..width)
            .map(|lane| {
                let rank = ballot_count_below(takers, lane);
                if rank < avail || need <= avail {
                    p.next + rank
                } else if p.drained {
                    n
                } else {
                    base + (rank - avail)
                }
            })
            .collect()
    }
}

/// Which kernel a simulation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simulated {
    /// `trace/persistent.wgsl` with this refill percentage.
    Persistent(u32),
    /// `trace/compacted.wgsl`.
    Compacted,
}

/// What a simulated run gives: the hits, the lanes' work, and the utilisation of its node and
/// triangle tests (active lanes over width × steps, as the diagnostics count them, with each
/// round's work done in lockstep).
#[derive(Clone, Debug)]
pub struct SimRun {
    /// Per ray.
    pub hits: Vec<Hit>,
    /// Node visits and triangle tests of all lanes.
    pub work: Work,
    /// Loop iterations of all subgroups.
    pub iterations: u64,
}

/// How a simulated grid runs: subgroups, their width, the stack, the fetch batch (rays a lane)
/// and budget (rays a lane; `u32::MAX` for none).
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    /// Lanes a subgroup, 1 to 128.
    pub width: u32,
    /// Subgroups.
    pub subgroups: u32,
    /// Stack entries a task.
    pub stack: usize,
    /// `FETCH_BATCH`.
    pub batch: u32,
    /// Rays a lane may claim (`params.z`).
    pub budget: u32,
}

/// Run `kernel` on the CPU: the grid's subgroups interleaved one loop iteration at a time on
/// one ray counter, each task's stack in its slot. Panics where an invariant breaks (two live
/// tasks on a slot, a ray traced twice or never, a loop that does not end).
pub fn simulate(kernel: Simulated, bvh: &Bvh, rays: &[Ray], any_hit: bool, grid: Grid) -> SimRun {
    let Grid {
        width,
        subgroups,
        stack,
        batch,
        budget,
    } = grid;
    let budget = budget.saturating_mul(width);
    assert!((1..=128).contains(&width) && subgroups > 0);
    let n = rays.len() as u32;
    let w = width as usize;
    let slots = (width * subgroups) as usize;
    let mut stacks = vec![0u32; slots * stack];
    let mut counter = 0u32;
    let mut hits = vec![None::<Hit>; rays.len()];
    let mut work = Work::default();
    let mut iterations = 0u64;
    struct Sg {
        tasks: Vec<Task>,
        alive: Vec<bool>,
        pool: Pool,
        done: bool,
    }
    let mut sgs: Vec<Sg> = (0..subgroups)
        .map(|s| Sg {
            tasks: (0..width)
                .map(|l| Task {
                    slot: s * width + l,
                    ..Task::start(&Ray::default(), 0, 0)
                })
                .collect(),
            alive: vec![false; w],
            pool: Pool::default(),
            done: false,
        })
        .collect();
    let valid = lanes_below(width);
    let mut live_sgs = subgroups;
    let mut guard = 0u64;
    while live_sgs > 0 {
        guard += 1;
        assert!(guard < 1 << 32, "the simulated kernel does not end");
        for sg in sgs.iter_mut().filter(|s| !s.done) {
            iterations += 1;
            let live = ballot_of(&sg.alive);
            let k = ballot_count(live);
            match kernel {
                Simulated::Compacted if !sg.pool.done(n) && k < width => {
                    let old = sg.tasks.clone();
                    let src: Vec<u32> = (0..width)
                        .map(|lane| compact_source(live, valid, lane, k))
                        .collect();
                    // A permutation of the lanes: every slot stays owned by exactly one lane.
                    let mut seen = vec![false; w];
                    for &s in &src {
                        assert!(!seen[s as usize], "width {width}: lane {s} taken twice");
                        seen[s as usize] = true;
                    }
                    for lane in 0..w {
                        sg.tasks[lane] = old[src[lane] as usize];
                        sg.alive[lane] = (lane as u32) < k;
                    }
                    let takers = [0, 1, 2, 3].map(|i| valid[i] & !lanes_below(k)[i]);
                    let ids = sg.pool.take(takers, width, n, budget, batch, &mut counter);
                    for (lane, &id) in ids.iter().enumerate().skip(k as usize) {
                        if id < n {
                            sg.tasks[lane] =
                                Task::start(&rays[id as usize], id, sg.tasks[lane].slot);
                            sg.alive[lane] = true;
                        }
                    }
                }
                Simulated::Persistent(pct) if !sg.pool.done(n) && k * 100 < width * pct => {
                    let idle = [0, 1, 2, 3].map(|i| !live[i] & valid[i]);
                    let ids = sg.pool.take(idle, width, n, budget, batch, &mut counter);
                    for (lane, &id) in ids.iter().enumerate() {
                        if !sg.alive[lane] && id < n {
                            let slot = sg.tasks[lane].slot;
                            sg.tasks[lane] = Task::start(&rays[id as usize], id, slot);
                            sg.alive[lane] = true;
                        }
                    }
                }
                _ => {}
            }
            if !sg.alive.iter().any(|&a| a) {
                if sg.pool.done(n) {
                    sg.done = true;
                    live_sgs -= 1;
                }
                continue;
            }
            let mut slots_used = std::collections::HashSet::new();
            for lane in 0..w {
                if !sg.alive[lane] {
                    continue;
                }
                let t = &mut sg.tasks[lane];
                assert!(
                    slots_used.insert(t.slot),
                    "two live tasks on slot {}",
                    t.slot
                );
                let s = t.slot as usize;
                let wk = t
                    .round(bvh, any_hit, &mut stacks[s * stack..(s + 1) * stack])
                    .expect("stack overflow");
                work.nodes += wk.nodes;
                work.tris += wk.tris;
                if t.cur == EMPTY {
                    let h = &mut hits[t.ray as usize];
                    assert!(h.is_none(), "ray {} traced twice", t.ray);
                    *h = Some(t.finish(bvh));
                    sg.alive[lane] = false;
                }
            }
        }
    }
    SimRun {
        hits: hits
            .into_iter()
            .enumerate()
            .map(|(i, h)| h.unwrap_or_else(|| panic!("ray {i} never traced")))
            .collect(),
        work,
        iterations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{brute_force, traverse};

    #[test]
    fn simulated_kernels_trace_every_ray_once_at_every_width() {
        let mesh = crate::mesh::procedural("proc:soup:300:4").unwrap();
        let bvh = Bvh::build_cpu(&mesh);
        let mut r = fastrand::Rng::with_seed(8);
        let rays: Vec<Ray> = (0..517)
            .map(|i| Ray {
                origin: [r.f32(), r.f32(), -1.0],
                tmin: if i % 7 == 0 { 1.3 } else { 0.0 },
                dir: [r.f32() - 0.5, r.f32() - 0.5, 1.0],
                tmax: if i % 5 == 0 { 1.2 } else { f32::INFINITY },
            })
            .collect();
        let want = brute_force(&mesh, &rays);
        for width in [1u32, 2, 3, 4, 8, 16, 31, 32, 33, 64, 100, 128] {
            for kernel in [
                Simulated::Compacted,
                Simulated::Persistent(50),
                Simulated::Persistent(100),
            ] {
                for any_hit in [false, true] {
                    let grid = Grid {
                        width,
                        subgroups: 3,
                        stack: 64,
                        batch: [0, 1, 4][(width % 3) as usize],
                        budget: if width % 2 == 0 {
                            u32::MAX
                        } else {
                            (rays.len() as u32).div_ceil(3 * width) + 1
                        },
                    };
                    let run = simulate(kernel, &bvh, &rays, any_hit, grid);
                    for (i, h) in run.hits.iter().enumerate() {
                        let base = traverse(&bvh, &rays[i], any_hit, 64).unwrap();
                        assert_eq!(*h, base, "{kernel:?} width {width} ray {i}");
                        assert_eq!(h.is_hit(), want[i].is_hit());
                    }
                }
            }
        }
    }
}
