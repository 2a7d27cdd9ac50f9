// The codec's workgroup scan: the exclusive prefix of one u32 an invocation over the
// workgroup, its total left in `sh_wg_total` (the prelude's carry across subgroups). Called by
// every invocation (barriers inside).
#import subgroup/api
#import workgroup/scan

fn wg_exclusive(v: u32, l: Lane) -> u32 {
    let incl = sg_inclusive(v, l.lane, l.size);
    let excl = sg_exclusive(v, incl, l.lane);
    return wg_exclusive_of_subgroups(sg_last(incl, l.size), l) + excl;
}
