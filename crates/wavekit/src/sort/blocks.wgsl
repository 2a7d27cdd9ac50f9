// Radix sort, between the count kernel and the scan of a pass: the tiles' digit counts are
// tile-major (`table[tile * 256 + digit]`, each tile's row written and read whole, ADR-0026);
// this kernel turns each block of BLOCK_TILES consecutive tiles' counts, in place, into the
// keys of each digit in the block's tiles before (an exclusive scan down each digit's
// column), and writes the block's total per digit digit-major (`block_sums[digit * blocks +
// block]`). Either the scan primitive scans block_sums, giving every (digit, block) the keys of
// smaller digits and of the digit in earlier blocks, or (up to INLINE_BLOCKS blocks) each
// scatter workgroup sums them itself; a tile's first destination for a digit is that plus its
// row of the table (scatter.wgsl). Not run over a single block: there the scatter sums the
// tiles' counts itself.
//
// Prepended constants: WG_SIZE, MIN_WIDTH, BLOCK_TILES, COLUMN_STEP (a divisor of
// BLOCK_TILES). Imported by name: `subgroup/api`, `monoid` (u32 add), `sort/keys` (Params and
// its binding).
#import subgroup/api
#import monoid
#import sort/keys

@group(0) @binding(3) var<storage, read_write> table: array<u32>;
@group(0) @binding(13) var<storage, read_write> block_sums: array<u32>;

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let blocks = (params.tiles + BLOCK_TILES - 1u) / BLOCK_TILES;
    let block = wg.x + wg.y * nwg.x;
    if (block >= blocks) {
        return;
    }
    let t0 = block * BLOCK_TILES;
    // Digits in chunks of WG_SIZE.
    for (var c = 0u; c < 256u; c += WG_SIZE) {
        let d = c + l.local;
        let mine = d < 256u;
        // All of the column's loads first (unrolled), so that they are in flight together; in
        // steps of COLUMN_STEP, a loop, where the sort policy says so (the browser's
        // SwiftShader compiled the full unroll too slowly: ADR-0077).
        var counts: array<u32, BLOCK_TILES>;
#unroll k BLOCK_TILES by COLUMN_STEP
        {
            counts[{k}] = 0u;
            if (mine && t0 + {k} < params.tiles) {
                counts[{k}] = table[(t0 + {k}) * 256u + d];
            }
        }
#end
        var run = 0u;
#unroll k BLOCK_TILES by COLUMN_STEP
        {
            if (mine && t0 + {k} < params.tiles) {
                table[(t0 + {k}) * 256u + d] = run;
            }
            run += counts[{k}];
        }
#end
        if (mine) {
            block_sums[d * blocks + block] = run;
        }
    }
}
