// Workgroup layer: ordered compaction of one item per invocation. A survivor's slot is the
// number of survivors with a smaller local index, so order is kept exactly (an atomic counter
// would scramble it): a ballot gives the survivors in the lanes below (all four words), the
// carry across subgroups (workgroup/scan.wgsl) those of the subgroups before. Right for any
// width, more subgroups than lanes included; without subgroups (subgroup/emu.wgsl) every
// invocation is its own subgroup and the carry does all the work in workgroup memory.
// Contract: every invocation calls it (barriers inside); the result is valid on every
// invocation. Needs the `monoid` piece to be u32 addition (T = u32).
#import shared/ballot
#import workgroup/scan

struct Slot {
    // Survivors before this invocation (its output index when it survives).
    index: u32,
    // Survivors in the whole workgroup.
    total: u32,
}

fn wg_compact(keep: bool, l: Lane) -> Slot {
    let b = sg_ballot(keep);
    let before = wg_exclusive_of_subgroups(ballot_count(b), l);
    return Slot(before + ballot_count_below(b, l.lane), sh_wg_total);
}
