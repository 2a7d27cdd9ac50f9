#!/usr/bin/env bash
# ADR-0071's wrong subgroup sums on the H200, bisected (ADR-0092): the block encoder of a9b2afe
# (workgroup atomics for its three sums) built five times, with none, one or all three of the
# subgroup sums it replaced restored from its parent: `all` (a9b2afe^'s kernel), `max` (the
# plane maximum: sg_max_u32 after a barrier, lane 0's atomicMax), `cost` (the 16 Rice costs:
# sg_add_u32 in a uniform loop, lane 0's atomicAdd), `dist` (the distortion sums after the
# per-sample loop), `none` (a9b2afe itself). Each encodes one 1080p mosaic at 1 and 2 bpp, 4:2:0
# and 4:4:4, and `codec bench` says whether the GPU's bytes equal the CPU's.
#
# Here (the 2-core machine):  scripts/h200-adr71.sh --prep
#   builds the five CLIs in a worktree at a9b2afe (/tmp/adr71) into .dev/adr71/cli.txz, and
#   needs .dev/photos (peer/python/codec_speed.py photos) for the frame.
# There, with carry [".gl", ".dev"]:  scripts/h200-adr71.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
kernel=crates/wavekit-codec/src/gpu/block_encode.wgsl

if [ "${1:-}" = "--prep" ]; then
    [ -d .gl ] && ls .gl/libvulkan1_*.deb >/dev/null 2>&1 || ../shared/tools/device-prep
    rm -rf /tmp/adr71 && git worktree add -f /tmp/adr71 a9b2afe >/dev/null
    git show a9b2afe^:$kernel > /tmp/adr71-all.wgsl
    cp /tmp/adr71/$kernel /tmp/adr71-none.wgsl
    python3 - <<'PY'
none = open('/tmp/adr71-none.wgsl').read()
hunks = {
    'max': ('''    if (top != 0u) {
        atomicMax(&sh_max, top);
    }''', '''    let sg_top = sg_max_u32(top);
    if (l.lane == 0u) {
        atomicMax(&sh_max, sg_top);
    }'''),
    'cost': ('''        if (sums[0] != 0u) {
            for (var p = 0u; p < 16u; p++) {
                if (sums[p] != 0u) {
                    atomicAdd(&sh_cost[p], sums[p]);
                }
            }
        }''', '''        for (var p = 0u; p < 16u; p++) {
            let v = sg_add_u32(sums[p]);
            if (l.lane == 0u && v != 0u) {
                atomicAdd(&sh_cost[p], v);
            }
        }'''),
    'dist': ('''        if (before != 0u || after != 0u) {
            atomicAdd(&sh_before, before);
            atomicAdd(&sh_after, after);
        }''', '''        let sb = sg_add_u32(before);
        let sa = sg_add_u32(after);
        if (l.lane == 0u) {
            atomicAdd(&sh_before, sb);
            atomicAdd(&sh_after, sa);
        }'''),
}
for name, (old, new) in hunks.items():
    assert old in none, name
    open(f'/tmp/adr71-{name}.wgsl', 'w').write(none.replace(old, new))
PY
    for v in all max cost dist none; do
        cp /tmp/adr71-$v.wgsl /tmp/adr71/$kernel
        (cd /tmp/adr71 && cargo build --release --quiet -p wavekit-cli --target-dir /tmp/adr71/target)
        cp /tmp/adr71/target/release/wavekit /tmp/wk-$v && strip /tmp/wk-$v
    done
    mkdir -p .dev/adr71
    tar cJf .dev/adr71/cli.txz -C /tmp wk-all wk-max wk-cost wk-dist wk-none
    du -sh .dev/adr71
    exit 0
fi

out=${1:?usage: scripts/h200-adr71.sh OUTDIR (there) or --prep (here)}
mkdir -p "$out"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp
[ -f .dev/frames/frame_1920x1080.png ] ||
    python3 peer/python/codec_speed.py frames --photos .dev/photos --out .dev/frames >"$out/frames.log" 2>&1
tar xJf .dev/adr71/cli.txz -C /tmp
for v in all max cost dist none; do
    timeout 60 /tmp/wk-$v codec bench --frames .dev/frames/frame_1920x1080.png --bpp 1,2 \
        --chroma 420,444 --runs 3 --rounds 1 --json >"$out/$v.jsonl" 2>"$out/$v.log" || true
    echo "$v: $(grep -o '"gpu_bytes_equal_cpu":[a-z]*' "$out/$v.jsonl" | sort | uniq -c | tr '\n' ' ')"
done | tee "$out/summary.txt"
