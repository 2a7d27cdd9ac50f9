//! The queries on the GPU (kernels in `query/`; the CPU twins are [`crate::reference::Tree`]'s
//! walks): k nearest neighbours (`knn.wgsl`), and radius search as CSR — a count a query
//! (`radius.wgsl`, COUNT), the core's exclusive scan of the counts, then each query's indices
//! written at its offset and sorted (`radius.wgsl`). With [`crate::SpatialConfig::sort_queries`]
//! the queries are first put in Morton order (`keys.wgsl` and wavekit's radix sort).

use wavekit::GpuContext;
use wavekit::kernel::Kernel;
use wavekit::scan::BoundScan;
use wavekit::sort::BoundSort;

use crate::tree::PointTree;
use crate::{MAX_K, Result, Spatial, SpatialError, WORKGROUP};

/// The k-NN kernel's best-k list for `k` slots, as straight-line WGSL (imported as
/// `spatial/insert`): `clear_best`, `before`, `insert` (a candidate known to come before the
/// last slot moves the slots behind it down one, at constant indices) and `write_best`.
pub fn insert_wgsl(k: u32) -> String {
    let mut s = String::from(
        "var<private> best_d: array<f32, K>;\nvar<private> best_i: array<u32, K>;\n\n\
         fn before(d: f32, i: u32, e: f32, j: u32) -> bool {\n    return d < e || (d == e && i < j);\n}\n\n\
         fn clear_best() {\n",
    );
    for j in 0..k {
        s +=
            &format!("    best_d[{j}] = bitcast<f32>(0x7f800000u);\n    best_i[{j}] = NO_POINT;\n");
    }
    // Slot j takes the one before it if the candidate comes before that one, else the
    // candidate if it comes before slot j, else keeps its own: selects only, no branches
    // (lanes of a subgroup that insert at different times do not serialise on nested ifs).
    s += "}\n\nfn insert(d: f32, i: u32) {\n";
    s += &format!(
        "    var after = before(d, i, best_d[{l}], best_i[{l}]);\n",
        l = k - 1
    );
    for j in (1..k).rev() {
        s += &format!(
            "    {{\n        let prev = before(d, i, best_d[{p}], best_i[{p}]);\n        \
             best_d[{j}] = select(select(best_d[{j}], d, after), best_d[{p}], prev);\n        \
             best_i[{j}] = select(select(best_i[{j}], i, after), best_i[{p}], prev);\n        \
             after = prev;\n    }}\n",
            p = j - 1
        );
    }
    s += "    best_d[0] = select(best_d[0], d, after);\n    best_i[0] = select(best_i[0], i, after);\n}\n\n\
          fn write_best(o: u32) {\n";
    for j in 0..k {
        s += &format!(
            "    out_index[o + {j}u] = best_i[{j}];\n    out_dist[o + {j}u] = best_d[{j}];\n"
        );
    }
    s += "}\n";
    s
}

/// Steps bound to their buffers.
type Steps = Vec<Step>;

/// A k-NN query bound to the tree, the queries and the outputs.
#[derive(Debug)]
pub struct BoundKnn {
    order: Option<(Kernel, wgpu::BindGroup, BoundSort)>,
    steps: Steps,
    queries: u32,
    /// k indices a query (u32, [`crate::reference::NO_POINT`] where missing).
    pub indices: wgpu::Buffer,
    /// k squared distances a query (f32, infinity where missing).
    pub distances: wgpu::Buffer,
    diag: wgpu::Buffer,
    /// The queries finished, given up and handed on (ADR-0091); [`BoundKnn::check`] reads it.
    status: wgpu::Buffer,
    /// The rest pass (software adapters' pool kernels): the baseline kernel over the queries
    /// the pool kernel handed on.
    rest: Option<Step>,
    budget: Option<u32>,
    _keep: Vec<wgpu::Buffer>,
}

/// The count pass of a radius search bound (then [`BoundRadius::bind_write`]).
#[derive(Debug)]
pub struct BoundRadius {
    order: Option<(Kernel, wgpu::BindGroup, BoundSort)>,
    count: Steps,
    scan: BoundScan,
    /// The count a query, and a 0 past them.
    pub counts: wgpu::Buffer,
    /// After the scan, `queries + 1` offsets, the total last.
    pub offsets: wgpu::Buffer,
    queries: u32,
    points: u32,
    entries: Vec<(u32, wgpu::Buffer)>,
    write: Kernel,
    /// The queries finished and given up (ADR-0091), for [`BoundRadius::check`].
    status: wgpu::Buffer,
    budget: Option<u32>,
}

/// One step bound to its buffers: the kernel, its bind group, its workgroups.
type Step = (Kernel, wgpu::BindGroup, u32);

/// The write pass of a radius search, in chunks of queries: each chunk's keys written, sorted,
/// their indices out.
#[derive(Debug)]
pub struct BoundWrite {
    chunks: Vec<(Step, BoundSort, Step)>,
    _keep: Vec<wgpu::Buffer>,
}

/// Bits of an index below `n` (at least 1).
pub fn index_bits(n: u32) -> u32 {
    (32 - n.saturating_sub(1).leading_zeros()).max(1)
}

/// Every binding a query kernel may use; `order` and the outputs are the caller's.
struct QueryBuffers {
    params: wgpu::Buffer,
    radius: wgpu::Buffer,
    order: wgpu::Buffer,
    qkeys: wgpu::Buffer,
    diag: wgpu::Buffer,
    chunk: wgpu::Buffer,
    budget: wgpu::Buffer,
    status: wgpu::Buffer,
}

/// Loop iterations a step and a start of `tree`'s walk may take at most, for k neighbours:
/// the one source of the WGSL's STEP_COST and START_COST (prepended to every kernel by
/// [`crate::builder`]) and of the budget's check here. BVH: a leaf's LEAF points, and a start's
/// seed (2K points) and binary search (33 halvings); kd-tree: a leaf's LEAF points (the leaf
/// cursor); octree: the octant search (8) and a leaf's LEAF points.
pub(crate) fn walk_costs(tree: crate::TreeKind, leaf: u32, k: u32) -> (u32, u32) {
    match tree {
        crate::TreeKind::Bvh => (1 + leaf, 2 * k + 34),
        crate::TreeKind::Kd => (1 + leaf, 1),
        crate::TreeKind::Octree => (9 + leaf, 1 + leaf),
    }
}

impl Spatial {
    /// The budget the kernels are given (net of what handing on costs: `reserve` loop
    /// iterations), u32 max for none; refused when it leaves no room for a start and a step.
    fn kernel_budget(&self, ctx: &GpuContext, k: u32, reserve: u32) -> Result<u32> {
        let Some(budget) = self.loop_budget(ctx) else {
            return Ok(u32::MAX);
        };
        let (step, start) = walk_costs(self.config.tree, self.config.leaf, k);
        let least = 1 + step + start + reserve;
        if budget < least {
            return Err(SpatialError::InvalidArgument(format!(
                "a loop budget of {budget}: this tree, leaf and k need at least {least} for one \
                 step of a walk"
            )));
        }
        Ok(budget - reserve)
    }

    #[allow(clippy::too_many_arguments)]
    fn query_buffers(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        nq: u32,
        k: u32,
        r2: f32,
        budget: u32,
        rest_list: bool,
    ) -> Result<QueryBuffers> {
        let status_words = 4 + if rest_list { u64::from(nq) } else { 0 };
        ctx.check_binding("spatial query status", status_words * 4)?;
        Ok(QueryBuffers {
            budget: ctx.uniform_from("spatial loop budget", &[budget, 0, 0, 0])?,
            status: ctx.storage_from("spatial query status", &vec![0u32; status_words as usize])?,
            params: ctx.uniform_from("spatial query params", &[nq, tree.leaves, tree.points, k])?,
            // The squared radius, then the periodic box (query/common.wgsl's box_size).
            radius: ctx.uniform_from(
                "spatial radius",
                &[r2, tree.boxsize[0], tree.boxsize[1], tree.boxsize[2]],
            )?,
            // The identity: the order when the queries are not sorted (or only one).
            order: ctx
                .storage_from("spatial query order", &(0..nq.max(1)).collect::<Vec<u32>>())?,
            qkeys: ctx.storage_uninit("spatial query keys", u64::from(nq.max(1)) * 4)?,
            diag: ctx.storage_from("spatial diagnostics", &[0u32; 4])?,
            chunk: ctx.uniform_from("spatial radius chunk", &[0, nq, 0, 0])?,
        })
    }

    fn entries(
        tree: &PointTree,
        queries: &wgpu::Buffer,
        b: &QueryBuffers,
        out: [&wgpu::Buffer; 3],
    ) -> Vec<(u32, wgpu::Buffer)> {
        vec![
            (0, b.params.clone()),
            (1, tree.sorted.clone()),
            (2, tree.nodes.clone()),
            (3, queries.clone()),
            (4, b.order.clone()),
            (5, out[0].clone()),
            (6, out[1].clone()),
            (7, b.radius.clone()),
            (8, out[2].clone()),
            (9, tree.bounds.clone()),
            (10, b.qkeys.clone()),
            (11, tree.codes.clone()),
            (12, b.diag.clone()),
            (13, b.chunk.clone()),
            (14, b.budget.clone()),
            (15, b.status.clone()),
        ]
    }

    fn bind_entries(
        ctx: &GpuContext,
        k: &Kernel,
        e: &[(u32, wgpu::Buffer)],
    ) -> Result<wgpu::BindGroup> {
        let r: Vec<(u32, &wgpu::Buffer)> = e.iter().map(|(b, x)| (*b, x)).collect();
        Ok(k.bind(ctx, &r)?)
    }

    fn order(
        &self,
        ctx: &GpuContext,
        b: &QueryBuffers,
        e: &[(u32, wgpu::Buffer)],
        nq: u32,
    ) -> Result<Option<(Kernel, wgpu::BindGroup, BoundSort)>> {
        if !self.config.sort_queries || nq <= 1 {
            return Ok(None);
        }
        let bind = Self::bind_entries(ctx, &self.keys, e)?;
        let sort = self
            .sort
            .bind(ctx, &b.qkeys, Some(&b.order), u64::from(nq))?;
        Ok(Some((self.keys.clone(), bind, sort)))
    }

    /// Bind a k-NN search of `nq` queries (three f32 each, finite) for `k` neighbours (1 to
    /// [`MAX_K`]), within `max_dist` where given (a distance, as [`Spatial::knn`] takes; the
    /// results hold squared distances).
    pub fn bind_knn(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &wgpu::Buffer,
        nq: u32,
        k: u32,
        max_dist: Option<f32>,
    ) -> Result<BoundKnn> {
        if !(1..=MAX_K).contains(&k) {
            return Err(SpatialError::InvalidArgument(format!(
                "k = {k}: give 1 to {MAX_K} neighbours"
            )));
        }
        let max_d2 = match max_dist {
            None => f32::INFINITY,
            Some(r) if r.is_finite() && r >= 0.0 => r * r,
            Some(r) => {
                return Err(SpatialError::InvalidArgument(format!(
                    "a largest distance of {r}: give a non-negative finite number"
                )));
            }
        };
        let out_words = u64::from(nq.max(1)) * u64::from(k);
        ctx.check_binding("spatial k-NN indices", out_words * 4)?;
        let pool = self.config.kernel != crate::KnnKernel::Baseline;
        let finite = self.loop_budget(ctx).is_some();
        // The pool kernel's hand-over loop takes up to POOL iterations.
        let reserve = if pool { self.config.pool + 8 } else { 0 };
        let budget = self.kernel_budget(ctx, k, reserve)?;
        let b = self.query_buffers(ctx, tree, nq, k, max_d2, budget, pool && finite)?;
        let indices = ctx.storage_uninit("spatial k-NN indices", out_words * 4)?;
        let distances = ctx.storage_uninit("spatial k-NN distances", out_words * 4)?;
        let unused = ctx.storage_uninit("spatial unused", 4)?;
        let e = Self::entries(tree, queries, &b, [&indices, &distances, &unused]);
        let kernel = self.knn_kernel(ctx, k, false)?;
        let mut steps = Vec::new();
        let per_group = if pool {
            WORKGROUP * self.config.pool
        } else {
            WORKGROUP
        };
        let mut rest = None;
        let mut keep = vec![b.params.clone(), b.radius.clone(), b.order.clone()];
        if nq > 0 {
            let bind = Self::bind_entries(ctx, &kernel, &e)?;
            steps.push((kernel, bind, nq.div_ceil(per_group)));
            if pool && finite {
                // The rest pass: the baseline kernel over the rest list, the whole budget for
                // each walk (a grid for every query; those past the list's length return).
                let whole = self.kernel_budget(ctx, k, 0)?;
                let flag = ctx.uniform_from("spatial loop budget, rest", &[whole, 1, 0, 0])?;
                let mut re = e.clone();
                re[14].1 = flag.clone();
                let baseline = self.knn_kernel(ctx, k, true)?;
                let bind = Self::bind_entries(ctx, &baseline, &re)?;
                rest = Some((baseline, bind, nq.div_ceil(WORKGROUP)));
                keep.push(flag);
            }
        }
        let diag = b.diag.clone();
        let status = b.status.clone();
        let order = self.order(ctx, &b, &e, nq)?;
        keep.extend([b.qkeys, b.budget, unused]);
        Ok(BoundKnn {
            diag,
            order,
            steps,
            queries: nq,
            indices,
            distances,
            status,
            rest,
            budget: self.loop_budget(ctx),
            _keep: keep,
        })
    }

    /// The `k` nearest points of each query (sorted by squared distance, then index), within
    /// `max_dist` when given: k indices and k squared distances a query, read back.
    pub fn knn(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &[[f32; 3]],
        k: u32,
        max_dist: Option<f32>,
    ) -> Result<(Vec<u32>, Vec<f32>)> {
        let bound = self.knn_run(ctx, tree, queries, k, max_dist)?;
        let n = queries.len() * k as usize;
        Ok((
            ctx.read_back("spatial k-NN indices", &bound.indices, n)?,
            ctx.read_back("spatial k-NN distances", &bound.distances, n)?,
        ))
    }

    /// Upload `queries`, run the k-NN kernels (k up to [`MAX_K`]) and check every query was
    /// answered: the bound buffers, for the caller to read back.
    fn knn_run(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &[[f32; 3]],
        k: u32,
        max_dist: Option<f32>,
    ) -> Result<BoundKnn> {
        let q = crate::upload_points(ctx, &tree.wrap_queries(queries), "query")?;
        let bound = self.bind_knn(ctx, tree, &q, queries.len() as u32, k, max_dist)?;
        ctx.submit_checked("a k-NN query", |e| bound.record(e))?;
        bound.check(ctx)?;
        Ok(bound)
    }

    /// As [`Spatial::knn_any`] (any `k`), the results handed to `f` in place: `f` reads the k
    /// indices and k squared distances a query where the read-back left them (the context's
    /// mapped staging memory, ADR-0100) instead of from copies, and its result is returned. For
    /// callers that convert the results into memory of their own (the Python package writes
    /// SciPy's float64 distances and int64 indices straight into numpy's arrays).
    pub fn knn_with<R>(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &[[f32; 3]],
        k: u32,
        max_dist: Option<f32>,
        f: impl FnOnce(&[u32], &[f32]) -> R,
    ) -> Result<R> {
        if k > MAX_K {
            let (i, d) = crate::many::knn_many(self, ctx, tree, queries, k, max_dist)?;
            return Ok(f(&i, &d));
        }
        let bound = self.knn_run(ctx, tree, queries, k, max_dist)?;
        let n = queries.len() * k as usize;
        let r =
            ctx.read_back_with("spatial k-NN indices", &bound.indices, n, |i: &[u32]| {
                ctx.read_back_with(
                    "spatial k-NN distances",
                    &bound.distances,
                    n,
                    |d: &[f32]| f(i, d),
                )
            })??;
        Ok(r)
    }

    /// Bind the count pass of a radius search (radius `r`, as [`Spatial::radius`] takes);
    /// `counts` get the number of points within it a query, then their exclusive scan (`nq + 1`
    /// words).
    pub fn bind_radius(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &wgpu::Buffer,
        nq: u32,
        r: f32,
    ) -> Result<BoundRadius> {
        let r2 = radius_squared(r)?;
        let budget = self.kernel_budget(ctx, 1, 0)?;
        let b = self.query_buffers(ctx, tree, nq, index_bits(tree.points), r2, budget, false)?;
        let counts = ctx.storage_from("spatial counts", &vec![0u32; nq as usize + 1])?;
        let offsets = ctx.storage_uninit("spatial offsets", (u64::from(nq) + 1) * 4)?;
        let unused = ctx.storage_uninit("spatial unused", 4)?;
        let e = Self::entries(tree, queries, &b, [&unused, &unused, &counts]);
        let mut count = Vec::new();
        if nq > 0 {
            let bind = Self::bind_entries(ctx, &self.count, &e)?;
            count.push((self.count.clone(), bind, nq.div_ceil(WORKGROUP)));
        }
        let scan = self
            .scan
            .bind(ctx, &counts, Some(&offsets), u64::from(nq) + 1)?;
        let status = b.status.clone();
        Ok(BoundRadius {
            status,
            budget: self.loop_budget(ctx),
            order: self.order(ctx, &b, &e, nq)?,
            count,
            scan,
            counts,
            offsets,
            queries: nq,
            points: tree.points,
            entries: e,
            write: self.write.clone(),
        })
    }

    /// Every point within `r` of each query, as CSR: `queries + 1` offsets and the indices
    /// (ascending a query), read back. A result of 2^32 neighbours or more (the offsets are
    /// 32-bit), or larger than one buffer of this device, is refused before it is written,
    /// with its size: [`Spatial::radius_pieces`] returns any size.
    pub fn radius(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &[[f32; 3]],
        r: f32,
    ) -> Result<(Vec<u32>, Vec<u32>)> {
        self.radius_or_counts(ctx, tree, queries, r)?
            .map_err(|(_, whole)| {
                SpatialError::InvalidArgument(format!(
                    "a radius search of {whole} neighbours ({} bytes of indices): one call \
                     returns at most {}; take it in pieces with Spatial::radius_pieces",
                    whole * 4,
                    radius_most(ctx)
                ))
            })
    }

    /// [`Spatial::radius`]'s CSR where one call can return it, else (`Ok(Err((counts, whole)))`)
    /// each query's count, taken by the same pass, for [`Spatial::radius_pieces`] to split by,
    /// and their sum.
    #[allow(clippy::type_complexity)]
    fn radius_or_counts(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &[[f32; 3]],
        r: f32,
    ) -> Result<std::result::Result<(Vec<u32>, Vec<u32>), (Vec<u32>, u64)>> {
        self.radius_or_counts_with(ctx, tree, queries, r, |offsets, indices| {
            (offsets, indices.to_vec())
        })
    }

    /// [`Spatial::radius_or_counts`], the CSR handed to `f` (the offsets, and the indices read
    /// in place from the mapped read-back) where one call returns it.
    #[allow(clippy::type_complexity)]
    fn radius_or_counts_with<R>(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &[[f32; 3]],
        r: f32,
        f: impl FnOnce(Vec<u32>, &[u32]) -> R,
    ) -> Result<std::result::Result<R, (Vec<u32>, u64)>> {
        let q = crate::upload_points(ctx, &tree.wrap_queries(queries), "query")?;
        let bound = self.bind_radius(ctx, tree, &q, queries.len() as u32, r)?;
        ctx.submit_checked("counting a radius query's neighbours", |e| {
            bound.record_count(e)
        })?;
        bound.check(ctx)?;
        // One read-back: the offsets. The 32-bit scan wraps past 2^32 neighbours, but each
        // query's count is the wrapping difference of its two offsets, and their sum in 64
        // bits is the whole.
        let offsets: Vec<u32> =
            ctx.read_back("spatial offsets", &bound.offsets, queries.len() + 1)?;
        let whole: u64 = counts_of_offsets(&offsets).map(u64::from).sum();
        if whole > radius_most(ctx) {
            return Ok(Err((counts_of_offsets(&offsets).collect(), whole)));
        }
        let total = offsets[queries.len()];
        let indices = ctx.storage_uninit("spatial radius indices", u64::from(total.max(1)) * 4)?;
        let write = bound.bind_write(ctx, self, &indices, &offsets)?;
        ctx.submit_checked("writing a radius query's neighbours", |e| {
            bound.record_write(e, &write)
        })?;
        bound.check_write(ctx)?;
        let got = ctx.read_back_with("spatial radius indices", &indices, total as usize, |i| {
            f(offsets, i)
        })?;
        Ok(Ok(got))
    }

    /// Every point within `r` of each query, of any total size, in pieces of consecutive
    /// queries of at most `most` neighbours each (and at most what one call returns,
    /// [`Spatial::radius`]; a query with more neighbours than that is refused with its count):
    /// `piece(first, offsets, indices)` gets each piece as CSR of its queries, from query
    /// `first` on, in order. Where `most` allows one call's worth and the whole fits in one
    /// call, that call is the only piece (one count pass); otherwise the counts are taken once
    /// for all queries, then each piece is searched again and written.
    pub fn radius_pieces(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &[[f32; 3]],
        r: f32,
        most: u64,
        mut piece: impl FnMut(usize, &[u32], &[u32]) -> Result<()>,
    ) -> Result<()> {
        let most = most.clamp(1, radius_most(ctx));
        let counts = if most == radius_most(ctx) {
            // One call, if the whole fits in one; its count pass gives the counts if not.
            match self.radius_or_counts(ctx, tree, queries, r)? {
                Ok((offsets, indices)) => return piece(0, &offsets, &indices),
                Err((counts, _)) => counts,
            }
        } else {
            self.count(ctx, tree, queries, r)?
        };
        self.radius_by_counts(ctx, tree, queries, r, &counts, most, piece)
    }

    /// [`Spatial::radius_pieces`] once the counts are known (`most` already clamped).
    #[allow(clippy::too_many_arguments)]
    fn radius_by_counts(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &[[f32; 3]],
        r: f32,
        counts: &[u32],
        most: u64,
        mut piece: impl FnMut(usize, &[u32], &[u32]) -> Result<()>,
    ) -> Result<()> {
        let mut q0 = 0;
        while q0 < queries.len() {
            let mut sum = 0u64;
            let mut q1 = q0;
            while q1 < queries.len() && sum + u64::from(counts[q1]) <= most {
                sum += u64::from(counts[q1]);
                q1 += 1;
            }
            if q1 == q0 {
                if u64::from(counts[q0]) > radius_most(ctx) {
                    return Err(SpatialError::InvalidArgument(format!(
                        "query {q0} has {} neighbours within {r}: more than one call returns \
                         ({}); use a smaller radius",
                        counts[q0],
                        radius_most(ctx)
                    )));
                }
                q1 = q0 + 1;
            }
            let (offsets, indices) = self.radius(ctx, tree, &queries[q0..q1], r)?;
            piece(q0, &offsets, &indices)?;
            q0 = q1;
        }
        Ok(())
    }

    /// Every point within `r` of each query, of any total size, as one CSR on the host: 64-bit
    /// offsets (`queries + 1`) and the indices (ascending a query): one call's read-back where
    /// the whole fits in one (no copy of the indices), else gathered from pieces as
    /// [`Spatial::radius_pieces`] takes them.
    pub fn radius_whole(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &[[f32; 3]],
        r: f32,
    ) -> Result<(Vec<u64>, Vec<u32>)> {
        self.radius_whole_with(ctx, tree, queries, r, |offsets, indices| {
            (offsets, indices.to_vec())
        })
    }

    /// [`Spatial::radius_whole`], the CSR handed to `f` (the 64-bit offsets, and the indices)
    /// instead of returned: where one call returns the whole, `f` reads the indices in place
    /// from the mapped read-back, with no copy on the host between (a caller converting them,
    /// as the Python package does into int64, saves one pass over them); else they are
    /// gathered from pieces first.
    pub fn radius_whole_with<R>(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &[[f32; 3]],
        r: f32,
        f: impl FnOnce(Vec<u64>, &[u32]) -> R,
    ) -> Result<R> {
        // `f` is called once: by the one call where it returns the whole, else below.
        let mut f = Some(f);
        let one = self.radius_or_counts_with(ctx, tree, queries, r, |offsets, indices| {
            let offsets = offsets.iter().map(|&o| u64::from(o)).collect();
            f.take().expect("called once")(offsets, indices)
        })?;
        let (counts, whole) = match one {
            Ok(got) => return Ok(got),
            Err(too_large) => too_large,
        };
        let mut offsets = Vec::with_capacity(queries.len() + 1);
        offsets.push(0u64);
        let mut indices: Vec<u32> = Vec::new();
        // Room for the whole where the host has it (else the vector grows as pieces come).
        indices
            .try_reserve_exact(usize::try_from(whole).unwrap_or(usize::MAX))
            .ok();
        let most = radius_most(ctx);
        self.radius_by_counts(ctx, tree, queries, r, &counts, most, |_, off, ind| {
            let base = indices.len() as u64;
            offsets.extend(off[1..].iter().map(|&o| base + u64::from(o)));
            indices.extend_from_slice(ind);
            Ok(())
        })?;
        Ok(f.take().expect("called once")(offsets, &indices))
    }

    /// The `k` nearest points of each query for any `k` ≥ 1 (SciPy's `query` has no limit):
    /// [`Spatial::knn`] up to [`MAX_K`], and past it a slower path that the docs describe
    /// there. Same results as [`Spatial::knn`]: k indices and squared distances a query,
    /// sorted by (distance, index), [`crate::reference::NO_POINT`] and infinity where fewer
    /// than k points are within `max_dist` (or in the tree).
    pub fn knn_any(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &[[f32; 3]],
        k: u32,
        max_dist: Option<f32>,
    ) -> Result<(Vec<u32>, Vec<f32>)> {
        if k <= MAX_K {
            return self.knn(ctx, tree, queries, k, max_dist);
        }
        crate::many::knn_many(self, ctx, tree, queries, k, max_dist)
    }

    /// The number of points within `r` of each query.
    pub fn count(
        &self,
        ctx: &GpuContext,
        tree: &PointTree,
        queries: &[[f32; 3]],
        r: f32,
    ) -> Result<Vec<u32>> {
        let q = crate::upload_points(ctx, &tree.wrap_queries(queries), "query")?;
        let bound = self.bind_radius(ctx, tree, &q, queries.len() as u32, r)?;
        ctx.submit_checked("counting a radius query's neighbours", |e| {
            bound.record_order(e);
            enc_clear_status(e, &bound.status);
            record_steps(e, &bound.count);
        })?;
        bound.check(ctx)?;
        Ok(ctx.read_back("spatial counts", &bound.counts, queries.len())?)
    }
}

/// Each query's count from the exclusive scan of the counts in 32 bits (`n + 1` offsets): the
/// wrapping difference of its two offsets, exact however often the scan wrapped, since no one
/// count reaches 2^32.
fn counts_of_offsets(offsets: &[u32]) -> impl Iterator<Item = u32> + '_ {
    offsets.windows(2).map(|w| w[1].wrapping_sub(w[0]))
}

/// Most neighbours one radius call returns: 32-bit offsets, one buffer of indices.
fn radius_most(ctx: &GpuContext) -> u64 {
    (u64::from(u32::MAX)).min(ctx.caps.limits.max_buffer_size / 4)
}

pub(crate) fn radius_squared(r: f32) -> Result<f32> {
    if !(r.is_finite() && r >= 0.0) {
        return Err(SpatialError::InvalidArgument(format!(
            "radius {r}: give a non-negative finite number"
        )));
    }
    Ok(r * r)
}

fn record_order(
    enc: &mut wgpu::CommandEncoder,
    order: &Option<(Kernel, wgpu::BindGroup, BoundSort)>,
    nq: u32,
) {
    if let Some((k, b, sort)) = order {
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            k.dispatch(&mut pass, b, nq.div_ceil(WORKGROUP));
        }
        sort.record(enc);
    }
}

/// Zero the status words (finished, given up, handed on) before a run.
fn enc_clear_status(enc: &mut wgpu::CommandEncoder, status: &wgpu::Buffer) {
    enc.clear_buffer(status, 0, Some(16));
}

/// The status words read back and checked: every query finished, or the error that says how
/// many were not and why.
fn check_status(
    ctx: &GpuContext,
    status: &wgpu::Buffer,
    what: &'static str,
    queries: Option<u32>,
    budget: Option<u32>,
) -> Result<()> {
    let s: Vec<u32> = ctx.read_back("spatial query status", status, 3)?;
    let asked = queries.unwrap_or(s[0] + s[1]);
    if s[0] == asked && s[1] == 0 {
        return Ok(());
    }
    Err(SpatialError::Unanswered {
        what,
        queries: asked,
        unanswered: asked.saturating_sub(s[0]),
        given_up: s[1],
        budget: budget.map_or("none".to_string(), |b| b.to_string()),
    })
}

fn record_steps(enc: &mut wgpu::CommandEncoder, steps: &[Step]) {
    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some("wavekit.spatial.query"),
        timestamp_writes: None,
    });
    for (k, b, g) in steps {
        k.dispatch(&mut pass, b, *g);
    }
}

impl BoundKnn {
    /// Record the search (the queries' order first, when sorted).
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        enc.clear_buffer(&self.diag, 0, None);
        enc_clear_status(enc, &self.status);
        record_order(enc, &self.order, self.queries);
        record_steps(enc, &self.steps);
        if let Some(rest) = &self.rest {
            record_steps(enc, std::slice::from_ref(rest));
        }
    }

    /// After a run: `Ok` when every query's result was written, else
    /// [`SpatialError::Unanswered`] (a walk past the loop budget; ADR-0091). A recorded search
    /// is not complete until this says so; [`Spatial::knn`] calls it.
    pub fn check(&self, ctx: &GpuContext) -> Result<()> {
        check_status(ctx, &self.status, "k-NN", Some(self.queries), self.budget)
    }

    /// After a run: queries the pool kernel handed on to the rest pass (0 on a GPU, where
    /// there is no loop budget).
    pub fn handed_on(&self, ctx: &GpuContext) -> Result<u32> {
        let s: Vec<u32> = ctx.read_back("spatial query status", &self.status, 3)?;
        Ok(s[2])
    }

    /// After a run with [`crate::SpatialConfig::diagnostics`]: the share of lane-steps that
    /// walked a query, of all lane-steps of the subgroups that ran (1 is every lane busy
    /// throughout); `None` without diagnostics.
    pub fn utilisation(&self, ctx: &GpuContext) -> Result<Option<f64>> {
        Ok(self
            .lane_steps(ctx)?
            .map(|(busy, total)| busy as f64 / total as f64))
    }

    /// After a run with [`crate::SpatialConfig::diagnostics`]: the walk's steps (each a node
    /// or a leaf: one pop, or one child taken), summed over the queries, and the lane-steps of
    /// the subgroups that ran; `None` without diagnostics (or no query). The counters are 32
    /// bits: sums past 2^32 wrap.
    pub fn lane_steps(&self, ctx: &GpuContext) -> Result<Option<(u64, u64)>> {
        let d: Vec<u32> = ctx.read_back("spatial diagnostics", &self.diag, 2)?;
        Ok((d[1] > 0).then(|| (u64::from(d[0]), u64::from(d[1]))))
    }
}

impl BoundRadius {
    fn record_order(&self, enc: &mut wgpu::CommandEncoder) {
        record_order(enc, &self.order, self.queries);
    }

    /// Record the order, the counts and their scan: then `offsets` holds `queries + 1`
    /// offsets, the total last.
    pub fn record_count(&self, enc: &mut wgpu::CommandEncoder) {
        self.record_order(enc);
        enc_clear_status(enc, &self.status);
        record_steps(enc, &self.count);
        self.scan.record(enc);
    }

    /// After the count pass: `Ok` when every query's walk finished, else
    /// [`SpatialError::Unanswered`] (ADR-0091). The counts and offsets are not whole until
    /// this says so; [`Spatial::radius`] and [`Spatial::count`] call it.
    pub fn check(&self, ctx: &GpuContext) -> Result<()> {
        check_status(
            ctx,
            &self.status,
            "radius search",
            Some(self.queries),
            self.budget,
        )
    }

    /// After the write pass: `Ok` when no walk was given up (the queries of chunks with
    /// neighbours are walked again), else [`SpatialError::Unanswered`].
    pub fn check_write(&self, ctx: &GpuContext) -> Result<()> {
        check_status(ctx, &self.status, "radius search", None, self.budget)
    }

    /// Bind the write pass into `indices` (room for the last offset), given the `offsets` the
    /// count pass left: the keys, their sort, the indices out, in chunks of queries whose
    /// neighbours' keys fit one storage binding (or [`crate::SpatialConfig::radius_chunk`]).
    pub fn bind_write(
        &self,
        ctx: &GpuContext,
        spatial: &Spatial,
        indices: &wgpu::Buffer,
        offsets: &[u32],
    ) -> Result<BoundWrite> {
        let mut out = BoundWrite {
            chunks: Vec::new(),
            _keep: Vec::new(),
        };
        let total = offsets.last().copied().unwrap_or(0);
        if self.queries == 0 || total == 0 {
            return Ok(out);
        }
        if offsets.len() != self.queries as usize + 1 {
            return Err(SpatialError::InvalidArgument(format!(
                "{} offsets for {} queries: give the count pass's queries + 1",
                offsets.len(),
                self.queries
            )));
        }
        let align = u64::from(ctx.caps.limits.min_storage_buffer_offset_alignment.max(4));
        let limit = ctx.binding_limit();
        let mut cap = (limit - align) / 8;
        if spatial.config.radius_chunk > 0 {
            cap = cap.min(u64::from(spatial.config.radius_chunk));
        }
        // Queries [q0, q1) a chunk, as many as fit `cap` keys.
        let mut plan = Vec::new();
        let mut q0 = 0usize;
        while q0 < self.queries as usize {
            let base = offsets[q0];
            let mut q1 = q0;
            while q1 < self.queries as usize && u64::from(offsets[q1 + 1] - base) <= cap {
                q1 += 1;
            }
            if q1 == q0 {
                return Err(SpatialError::InvalidArgument(format!(
                    "query {q0} has {} neighbours, more than one pass can sort ({cap}): use a \
                     smaller radius",
                    offsets[q0 + 1] - base
                )));
            }
            plan.push((q0 as u32, q1 as u32, base, offsets[q1] - base));
            q0 = q1;
        }
        let most = plan.iter().map(|c| c.3).max().unwrap_or(1);
        let keys = ctx.storage_uninit("spatial radius keys", u64::from(most) * 8)?;
        let nb = index_bits(self.points);
        let qb = index_bits(self.queries);
        let sorter = spatial.pair_sort(ctx, nb + qb)?;
        for (q0, q1, base, n) in plan {
            if n == 0 {
                continue;
            }
            // The indices' window: from the aligned byte at or below the chunk's first index.
            let first = u64::from(base) * 4;
            let at = first / align * align;
            let shift = ((first - at) / 4) as u32;
            let size = (indices.size() - at).min(limit / 4 * 4);
            let chunk = ctx.uniform_from("spatial radius chunk", &[q0, q1, base, shift])?;
            let mut e = self.entries.clone();
            e[5].1 = keys.clone();
            e[8].1 = self.offsets.clone();
            e[13].1 = chunk.clone();
            let bind = Spatial::bind_entries(ctx, &self.write, &e)?;
            let write = (self.write.clone(), bind, self.queries.div_ceil(WORKGROUP));
            let sort = sorter.bind(ctx, &keys, None, u64::from(n))?;
            let params = ctx.uniform_from("spatial extract params", &[n, 0, 0, nb])?;
            e[0].1 = params.clone();
            let ranged: Vec<(u32, &wgpu::Buffer, u64, Option<u64>)> = e
                .iter()
                .map(|(b, x)| {
                    if *b == 8 {
                        (*b, indices, at, Some(size))
                    } else {
                        (*b, x, 0, None)
                    }
                })
                .collect();
            let bind = spatial.extract.bind_ranges(ctx, &ranged)?;
            let extract = (spatial.extract.clone(), bind, n.div_ceil(WORKGROUP));
            out.chunks.push((write, sort, extract));
            out._keep.extend([chunk, params]);
        }
        out._keep.push(keys);
        Ok(out)
    }

    /// Record the write pass (after [`BoundRadius::record_count`] has run and `indices` was
    /// sized from the total).
    pub fn record_write(&self, enc: &mut wgpu::CommandEncoder, write: &BoundWrite) {
        enc_clear_status(enc, &self.status);
        for (w, sort, extract) in &write.chunks {
            record_steps(enc, std::slice::from_ref(w));
            sort.record(enc);
            record_steps(enc, std::slice::from_ref(extract));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::counts_of_offsets;

    /// Counts whose 32-bit scan wraps several times come back exact, and so does their sum in
    /// 64 bits (seeded counts, some near 2^32).
    #[test]
    fn counts_come_back_from_wrapped_offsets() {
        let mut rng = fastrand::Rng::with_seed(0x5eed);
        for n in [0usize, 1, 2, 7, 64, 1000] {
            let counts: Vec<u32> = (0..n)
                .map(|i| match i % 3 {
                    0 => u32::MAX - rng.u32(0..1000),
                    1 => rng.u32(..),
                    _ => rng.u32(0..50),
                })
                .collect();
            let mut offsets = vec![0u32];
            for &c in &counts {
                offsets.push(offsets.last().unwrap().wrapping_add(c));
            }
            let got: Vec<u32> = counts_of_offsets(&offsets).collect();
            assert_eq!(got, counts, "n = {n}");
            let whole: u64 = counts_of_offsets(&offsets).map(u64::from).sum();
            assert_eq!(whole, counts.iter().map(|&c| u64::from(c)).sum::<u64>());
        }
    }
}
