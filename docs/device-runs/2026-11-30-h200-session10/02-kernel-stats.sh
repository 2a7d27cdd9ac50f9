#!/usr/bin/env bash
# Session 10, call 2: what the NVIDIA driver made of every kernel (kernel-stats:
# registers, spills, shared memory through VK_KHR_pipeline_executable_properties), for the
# defaults and for the tile shapes measured before; each variant's composed WGSL dumped by a
# small run with WAVEKIT_DUMP_WGSL.
K=.dev/bin/kernel-stats
W=.dev/bin/wavekit
dump() { local d=$1; shift; env WAVEKIT_DUMP_WGSL=/tmp/wg/$d "$@" > /dev/null 2>&1; echo "## $d" >> $OUT/stats.txt; $K /tmp/wg/$d >> $OUT/stats.txt 2>&1; }
dump defaults $W bench primitives --log2 16 --runs 2
dump dwt $W bench dwt --sizes 1080p --planes 1 --runs 2
for s in 4 6 10 12; do dump select-steps$s WAVEKIT_TILE_STEPS=$s $W bench primitives --log2 16 --runs 2 --only select --only partition; done
dump select-stage0 WAVEKIT_SELECT_STAGE_STEPS=0 $W bench primitives --log2 16 --runs 2 --only select --only partition
for s in 5 6 8; do dump scan-steps$s WAVEKIT_TILE_STEPS=$s $W bench primitives --log2 16 --runs 2 --only scan_inclusive; done
dump no-lookback WAVEKIT_EXPERIMENT_NO_LOOKBACK=1 $W bench primitives --log2 16 --runs 2 --only scan_inclusive --only select
$W bench primitives --help > $OUT/help.txt 2>&1
cut -c1-400 $OUT/stats.txt
