#!/usr/bin/env bash
# How call 7's WGSL variants were made (on aa68b09, lavapipe width 8: the composed source does
# not depend on the adapter's width). Dumps select and partition at 8 and 12 steps, with the
# look-back off (EXPERIMENT_NO_LOOKBACK) or the stores off (EXPERIMENT_SELECT_STORES=1), then
# edits select's dumps: tile_fallback returning 0 (nofallback), store_out without the window
# branch (nowindow), lookback() a barrier only (nowalk); the scan's dumps likewise (nowalk).
W=target/release/wavekit
d() { local name=$1; shift; rm -rf /tmp/wgv; env WAVEKIT_DUMP_WGSL=/tmp/wgv WAVEKIT_ADAPTER=llvmpipe LP_NATIVE_VECTOR_WIDTH=256 "$@" $W bench primitives --log2 10 --runs 1 --only select >/dev/null 2>&1; for f in /tmp/wgv/select_select-*; do p=$(grep -c "const PARTITION: bool = true" $f); cp $f /tmp/var/$name-$([ $p = 1 ] && echo part || echo sel).wgsl; done; }
mkdir -p /tmp/var
for s in 8 12; do
  d s$s-base WAVEKIT_TILE_STEPS=$s
  d s$s-nolb WAVEKIT_TILE_STEPS=$s WAVEKIT_EXPERIMENT_NO_LOOKBACK=1
  d s$s-nostore WAVEKIT_TILE_STEPS=$s WAVEKIT_EXPERIMENT_SELECT_STORES=1
done
python3 - <<'PY'
import glob
def swap(src, head, body):
    a = src.index(head); b = src.index('\n}\n', a) + 3
    return src[:a] + head + '\n' + body + '\n}\n' + src[b:]
for s in ['s8', 's12']:
    src = open(f'/tmp/var/{s}-base-sel.wgsl').read()
    open(f'/tmp/var/{s}-nofallback-sel.wgsl', 'w').write(swap(src, 'fn tile_fallback(tile: u32, l: Lane) -> u32 {', '    return 0u;'))
    open(f'/tmp/var/{s}-nowindow-sel.wgsl', 'w').write(swap(src, 'fn store_out(pos: u32, v: D) {', '    store_data(pos, v);'))
    open(f'/tmp/var/{s}-nowalk-sel.wgsl', 'w').write(swap(src, 'fn lookback(tile: u32, aggregate: T, l: Lane, may_wait: bool) -> T {', '    workgroupBarrier();\n    return tile * 7u;'))
PY
