#!/usr/bin/env bash
# Embree's packet calls (rtcIntersect16 / rtcOccluded16 from native code, peer/embree/packets.cpp)
# against wavekit-trace on the same rays, in one run on the H200 machine (issue 29).
#
# Here, once:  scripts/h200-embree-packets.sh --prep EMBREE_GIT_DIR
#   EMBREE_GIT_DIR is a clone of github.com/RenderKit/embree (any commit that has the tag
#   v4.4.0). Puts Embree 4.4.0's public headers (include/embree4/*.h, and rtcore_config.h made
#   from kernels/rtcore_config.h.in: version 4.4.0, no API namespace, one instance level,
#   instance arrays on, the widest hit record) and the embreex 4.4.0 wheel's libembree4 and
#   libtbb into .dev/embree/ (git-ignored, never committed). The headers must match the
#   library: embreex 4.4.0.post1 ships Embree 4.4.0.
# There:       OUT=DIR scripts/h200-embree-packets.sh
#   Builds the peer with g++, writes the dragon's rays and wavekit's hits with
#   `wavekit trace bench --out` (its rays/s in the same call), then times Embree on them.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--prep" ]; then
    src=${2:?give the embree clone}
    rm -rf .dev/embree && mkdir -p .dev/embree/include/embree4 .dev/embree/lib
    for h in rtcore.h rtcore_buffer.h rtcore_builder.h rtcore_common.h rtcore_device.h \
        rtcore_geometry.h rtcore_quaternion.h rtcore_ray.h rtcore_scene.h; do
        git -C "$src" show "v4.4.0:include/embree4/$h" > ".dev/embree/include/embree4/$h"
    done
    git -C "$src" show v4.4.0:kernels/rtcore_config.h.in | sed \
        -e 's/@EMBREE_VERSION_MAJOR@/4/g; s/@EMBREE_VERSION_MINOR@/4/g' \
        -e 's/@EMBREE_VERSION_PATCH@/0/g; s/@EMBREE_VERSION_NUMBER@/40400/g' \
        -e 's/@EMBREE_VERSION_NOTE@//g; s/@EMBREE_MAX_INSTANCE_LEVEL_COUNT@/1/g' \
        -e 's/^#cmakedefine EMBREE_GEOMETRY_INSTANCE_ARRAY/#define EMBREE_GEOMETRY_INSTANCE_ARRAY/' \
        -e 's/^#cmakedefine01 \(.*\)/#define \1 0/' -e 's/^#cmakedefine .*//' \
        > .dev/embree/include/embree4/rtcore_config.h
    tmp=$(mktemp -d)
    pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
        --python-version 3.12 embreex==4.4.0.post1 -d "$tmp"
    (cd "$tmp" && unzip -q embreex-*.whl 'embreex.libs/*')
    cp "$tmp"/embreex.libs/* .dev/embree/lib/
    # Carried compressed (the machine takes 64 MiB a call); unpacked there.
    gzip -9 .dev/embree/lib/libembree4-*.so.4
    rm -rf "$tmp"
    ls -la .dev/embree/lib .dev/embree/include/embree4
    exit 0
fi
OUT=${OUT:-embree-out}
mkdir -p "$OUT"
for z in .dev/embree/lib/*.gz; do [ -e "$z" ] && gzip -dc "$z" > "${z%.gz}"; done
lib=$(ls .dev/embree/lib/libembree4-*.so.4)
g++ -O3 -march=native -std=c++17 -I.dev/embree/include peer/embree/packets.cpp "$lib" \
    -Wl,-rpath,"$PWD/.dev/embree/lib" -pthread -o /tmp/embree-packets
[ -s /tmp/dragon.ply ] || gzip -dc .dev/dragon.ply.gz > /tmp/dragon.ply
rm -rf /tmp/trace-rays && mkdir -p /tmp/trace-rays
.dev/bin/wavekit trace bench --meshes /tmp/dragon.ply --random 4194304 --runs 10 --rounds 2 \
    --out /tmp/trace-rays --json 2>"$OUT/wavekit.log" | grep '"rays"' >"$OUT/wavekit.jsonl"
/tmp/embree-packets /tmp/trace-rays 16 5 | tee "$OUT/embree-packets.jsonl"
