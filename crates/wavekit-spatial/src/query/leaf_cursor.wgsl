// A leaf offered LEAF points a step (imported by walk_kd and walk_octree, whose leaves can
// hold more: equal codes, the octree's deepest level), so that no step loops more than LEAF
// times (ADR-0091). The walk sets [leaf_at, leaf_end) where it reaches a leaf and calls
// `offer_leaf`; its next steps go on with the leaf before the stack. Needs the walk's `sp`,
// `walk_p` and the kernel's `offer`.

// The leaf being offered: [leaf_at, leaf_end).
var<private> leaf_at: u32;
var<private> leaf_end: u32;

fn walk_busy() -> bool {
    return sp > 0u || leaf_at < leaf_end;
}

// Offer the next LEAF points of the leaf (at most).
fn offer_leaf() {
    let stop = min(leaf_end, leaf_at + LEAF);
    for (var j = leaf_at; j < stop; j++) {
        let s = sorted[j];
        offer(dist(walk_p, s.xyz), bitcast<u32>(s.w));
    }
    leaf_at = stop;
}
