// Workgroup layer: the carry across subgroups. Each subgroup's total goes to workgroup
// memory; the first subgroup scans the totals in chunks of its own width (so any number of
// subgroups works, more than its lanes included), and after a barrier every invocation reads
// the combined total of the lower-numbered subgroups.
// Contract: called by every invocation of the workgroup (it has barriers); the result is
// valid on every invocation. Needs WG_SIZE, MIN_WIDTH, T, identity, combine, sg_inclusive,
// sg_exclusive.

const MAX_SUBGROUPS: u32 = WG_SIZE / MIN_WIDTH;

var<workgroup> sh_sg: array<T, MAX_SUBGROUPS>;
var<workgroup> sh_wg_total: T;

// `total` is this subgroup's total, the same on all its lanes. Returns the exclusive prefix
// of this subgroup within the workgroup; the workgroup's total is in sh_wg_total afterwards.
fn wg_exclusive_of_subgroups(total: T, l: Lane) -> T {
    // Earlier readers of sh_sg (a previous call) must be done before it is rewritten.
    workgroupBarrier();
    if (l.lane == 0u) {
        sh_sg[l.sg] = total;
    }
    workgroupBarrier();
    let count = WG_SIZE / l.size;
    if (l.sg == 0u) {
        var carry = identity();
        for (var c = 0u; c < count; c += l.size) {
            let j = c + l.lane;
            var v = identity();
            if (j < count) {
                v = sh_sg[j];
            }
            let incl = sg_inclusive(v, l.lane, l.size);
            let excl = sg_exclusive(v, incl, l.lane);
            if (j < count) {
                sh_sg[j] = combine(carry, excl);
            }
            carry = combine(carry, sg_last(incl, l.size));
        }
        if (l.lane == 0u) {
            sh_wg_total = carry;
        }
    }
    workgroupBarrier();
    return sh_sg[l.sg];
}
