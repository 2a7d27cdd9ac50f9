#!/usr/bin/env bash
# Issue 52 on the H200 machine, in one call: the spatial and tracer GPU tests (the loop budget's
# tests among them) at subgroup width 32 and without subgroups, issue 52's reproduction through
# the CLI (every tree with the compacted kernel against the baseline), and the k-NN and
# traversal kernels' speed against the build before the change (4099b3d), interleaved, on the
# benchmark protocol.
#
# Here (the 2-core machine):   scripts/h200-loop-budget.sh --prep
#   builds the release CLI and the GPU test binaries of the spatial, tracer and codec crates
#   into .dev/, with WITH_OLD=1 the previous CLI (from a worktree at 4099b3d) as
#   .dev/bin/wavekit-old, and fetches the Vulkan loader into .gl/.
# There, with carry [".gl", ".dev"]:   scripts/h200-loop-budget.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--prep" ]; then
    [ -d .gl ] && ls .gl/libvulkan1_*.deb >/dev/null 2>&1 || ../shared/tools/device-prep
    cargo build --release --quiet -p wavekit-cli
    # Each test binary as CRATE-NAME (the spatial and tracer crates both have a budget_gpu).
    rm -rf .dev/tests && mkdir -p .dev/bin .dev/tests
    cargo test --release -p wavekit-spatial -p wavekit-trace -p wavekit-codec --no-run --message-format=json 2>/dev/null |
        python3 -c 'import json,shutil,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"] \
            and m["target"]["name"].endswith("_gpu"):
        crate = m["package_id"].split("#")[0].rstrip("/").split("/")[-1].replace("wavekit-", "")
        shutil.copy(m["executable"], ".dev/tests/%s-%s" % (crate, m["target"]["name"]))'
    ls .dev/tests
    cp target/release/wavekit .dev/bin/
    if [ -n "${WITH_OLD:-}" ] && [ ! -x .dev/bin/wavekit-old ]; then
        git worktree add -f /tmp/wavekit-old 4099b3d >/dev/null
        (cd /tmp/wavekit-old && cargo build --release --quiet -p wavekit-cli --target-dir /tmp/wavekit-old/target)
        cp /tmp/wavekit-old/target/release/wavekit .dev/bin/wavekit-old
    fi
    strip .dev/bin/* .dev/tests/*
    du -shc .gl .dev
    exit 0
fi

out=${1:?usage: scripts/h200-loop-budget.sh OUTDIR [tests|spatial|trace ...] (there) or --prep (here)}
shift
phases=${*:-tests spatial trace}
has() { [[ " $phases " == *" $1 "* ]]; }
mkdir -p "$out"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu --format=csv -lms 200 > "$out/clock.csv" &
clock=$!
trap 'kill $clock 2>/dev/null || true' EXIT
W=.dev/bin/wavekit
O=.dev/bin/wavekit-old
$W probe --json > "$out/probe.json"
status=0

if has tests; then
$W selftest --json > "$out/selftest.json" 2> "$out/selftest.log" && echo "selftest: passed" || { echo "selftest: FAILED"; status=1; }
echo "== tests, width 32 and without subgroups" | tee "$out/tests.txt"
for t in .dev/tests/*; do
    for mode in sg nosg; do
        env_mode=$([ $mode = nosg ] && echo WAVEKIT_NO_SUBGROUPS=1 || echo WAVEKIT_EXPECT_SUBGROUP=32)
        echo "-- $(basename "$t") $mode" >> "$out/tests.txt"
        if env $env_mode "$t" --include-ignored --skip large_ >> "$out/tests.txt" 2>&1; then
            echo "$(basename "$t") $mode: ok"
        else
            echo "$(basename "$t") $mode: FAILED"; status=1
        fi
    done
done

echo "== issue 52's reproduction: every tree, compacted and persistent against baseline"
python3 - "$out" <<'PY'
import numpy as np, subprocess, sys
out = sys.argv[1]
rng = np.random.default_rng(7)
def blobs(n):
    c = rng.random((12, 3)) * 100
    s = np.array([0.05, 0.3, 2, 8, 0.01, 1, 4, 0.2, 15, 0.5, 3, 0.08])
    l = rng.integers(0, 12, n)
    return (c[l] + rng.normal(0, 1, (n, 3)) * s[l, None]).astype(np.float32)
p = blobs(34833)
q = np.concatenate([p[rng.integers(0, len(p), 750)], blobs(750)])
np.save('/tmp/p.npy', p); np.save('/tmp/q.npy', q)
lines = []
for tree in ['bvh', 'kd', 'octree']:
    res = {}
    for kern in ['baseline', 'persistent', 'compacted']:
        r = subprocess.run(['.dev/bin/wavekit', 'knn', '/tmp/p.npy', '/tmp/q.npy', '-k', '33', '-o', f'/tmp/i_{kern}.npy',
                            '--distances', f'/tmp/d_{kern}.npy', '--tree', tree, '--kernel', kern, '--pool', '8'],
                           capture_output=True, text=True)
        res[kern] = (np.load(f'/tmp/i_{kern}.npy'), np.load(f'/tmp/d_{kern}.npy')) if r.returncode == 0 else None
        if r.returncode != 0:
            lines.append(f'{tree} {kern}: exit {r.returncode}: {r.stderr.strip()[-300:]}')
    b = res['baseline']
    for kern in ['persistent', 'compacted']:
        g = res[kern]
        if b is None or g is None:
            continue
        zero = int((g[1] == 0).all(axis=1).sum())
        diff = int((~((g[0] == b[0]).all(axis=1) & (g[1] == b[1]).all(axis=1))).sum())
        lines.append(f'{tree} {kern}: rows of zeros {zero}, rows unlike the baseline {diff} of {len(q)}')
open(f'{out}/issue52.txt', 'w').write('\n'.join(lines) + '\n')
print('\n'.join(lines))
PY
fi

if has spatial; then
echo "== k-NN speed, this build against 4099b3d, interleaved twice"
for round in 1 2; do
    for bin in "$W" "$O"; do
        for v in "--tree kd" "--tree kd --kernel compacted" "--tree bvh" "--tree octree --kernel persistent"; do
            $bin spatial bench --sets uniform,clustered --points 1000000 --queries 1000000 -k 16 --radius 0.0005 \
                $v --runs 20 --rounds 2 --json 2>>"$out/spatial.log" | sed "s|^|$(basename $bin) round $round $v |" >> "$out/spatial.txt" || status=1
        done
    done
done
cut -c1-400 "$out/spatial.txt"
fi

if has trace; then
echo "== traversal speed, this build against 4099b3d, interleaved twice"
for round in 1 2; do
    for bin in "$W" "$O"; do
        $bin trace bench --meshes proc:grid:40 --json --runs 20 --rounds 2 2>>"$out/trace.log" \
            | sed "s|^|$(basename $bin) round $round |" >> "$out/trace.txt" || status=1
        $bin trace bench --meshes proc:grid:40 --spp 1 --json --runs 10 --rounds 2 2>>"$out/trace.log" \
            | sed "s|^|$(basename $bin) round $round paths |" >> "$out/trace.txt" || status=1
    done
done
cut -c1-300 "$out/trace.txt"
fi
exit $status
