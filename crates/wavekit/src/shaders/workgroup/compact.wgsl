// Workgroup layer: ordered compaction. A survivor's slot is the number of survivors with a
// smaller index, so order is kept exactly (an atomic counter would scramble it). Within a
// subgroup the count comes from a ballot (all four words) and the bits below the lane;
// across subgroups from wg_exclusive_of_subgroups over u32 counts (T = u32, add).
// Contract: every invocation calls it (barriers inside); results valid on every invocation.

struct Slots {
    // Survivors before this lane's element in the same subgroup step, plus those of the
    // earlier steps of this subgroup.
    within: u32,
    // Survivors in this step of this subgroup (all lanes).
    step_total: u32,
}

fn sg_slot(keep: bool, lane: u32) -> Slots {
    let b = sg_ballot(keep);
    return Slots(ballot_count_below(b, lane), ballot_count(b));
}
