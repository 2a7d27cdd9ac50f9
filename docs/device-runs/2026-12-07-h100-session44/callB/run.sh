#!/usr/bin/env bash
# Session 44, the Python call (the machine of the UI call, right after it, which kept Warp's
# first part in /tmp/keep): the KDTree against SciPy's cKDTree (16 workers), CuPy's KDTree and
# Warp 1.19's HashGrid, then the arrays at 2^26 against numpy and CuPy.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/o /tmp/keep; cp .whl/warp.part.* /tmp/keep/ 2>/dev/null; ls -la /tmp/keep
rm -rf /tmp/site && mkdir -p /tmp/site && python3 -m zipfile -e .whl/wavekit-*.whl /tmp/site
cat /tmp/keep/warp.part.* | xz -d | tar -x -C /tmp/site; ls /tmp/site
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
python3 -c "import warp; print('warp', warp.__version__)" 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv | tee /tmp/o/gpu.csv
python3 -c "import numpy, scipy, cupy; print('numpy', numpy.__version__, 'scipy', scipy.__version__, 'cupy', cupy.__version__)" | tee /tmp/o/python-versions.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 200 > /tmp/o/clock.csv & c=$!
cd crates/wavekit-py/bench
timeout 260 python3 kdtree.py --warmup-s 0.5 --out /tmp/o/kdtree.jsonl > /dev/null 2> /tmp/o/kdtree.txt; echo "kdtree exit $?"
grep '^#\|device\|against\|DIFF' /tmp/o/kdtree.txt | head -40
tar -czf $OUT/py44b.tgz -C /tmp/o .
timeout 150 python3 arrays.py --sizes 26 --warmup-ms 200 --rounds 3 --runs 2 --out /tmp/o/arrays.jsonl > /dev/null 2> /tmp/o/arrays.txt; echo "arrays exit $?"
grep '^#\|device' /tmp/o/arrays.txt | head -40
kill $c; tar -czf $OUT/py44b.tgz -C /tmp/o .
