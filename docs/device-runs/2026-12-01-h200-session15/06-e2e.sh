#!/usr/bin/env bash
# Session 15, call 5: the CLI end to end again. In call 4, e2e.py's records went to stdout (sent
# to /dev/null) and its --out file was written only at the end, so the runs stopped at their
# time limits left nothing; e2e.py now writes each record as it is measured. The new binary
# only (324dad0's numbers are the issue's table), in three runs each with its own limit:
# 2^26 and the 8K PNG, 2^28, 2^29 + 5 (without the pairs: numpy's stable argsort of 2^29 keys
# alone takes over a minute).
set -u
tar -C .dev -xJf .dev/pack.tar.xz ./bin/wavekit
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p $XDG_RUNTIME_DIR $OUT
W=.dev/bin/wavekit
timeout 70 python3 peer/python/e2e.py --wavekit $W --sizes 26 --png --dir /tmp/e2e --out $OUT/e2e-26.jsonl > /dev/null 2> $OUT/e2e-26.txt; echo "rc=$?" >> $OUT/e2e-26.txt
timeout 110 python3 peer/python/e2e.py --wavekit $W --sizes 28 --dir /tmp/e2e --out $OUT/e2e-28.jsonl > /dev/null 2> $OUT/e2e-28.txt; echo "rc=$?" >> $OUT/e2e-28.txt
timeout 120 python3 peer/python/e2e.py --wavekit $W --sizes 29 --jobs reduce,scan,select,histogram,sort --dir /tmp/e2e --out $OUT/e2e-29.jsonl > /dev/null 2> $OUT/e2e-29.txt; echo "rc=$?" >> $OUT/e2e-29.txt
python3 -c "
import numpy as np; np.save('/tmp/e2e-t.npy', np.arange(1 << 28, dtype=np.uint32))"
$W --timings scan /tmp/e2e-t.npy -o /tmp/o.npy > /dev/null 2> $OUT/timings-scan-28.txt
grep -h "e2e:\|rc=" $OUT/*.txt; cat $OUT/timings-scan-28.txt
