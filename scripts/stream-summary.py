#!/usr/bin/env python3
"""Per-frame times of `wavekit stream recv --stats` files, summarised: for each file the
frames, the median and 99th percentile of encode, transit, decode and capture-to-decoded
latency (ms), the same latency from the 31st frame on (past the first frame's pipeline
builds), and the frames with concealed blocks.

Usage: scripts/stream-summary.py STATS.jsonl [...]"""
import json
import sys


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("file | frames | encode p50/p99 | transit p50/p99 | decode p50/p99 | latency p50/p99 "
          "| latency from frame 31 p50/p99 | frames concealed (ms)")
    for path in sys.argv[1:]:
        frames = [f for f in map(json.loads, open(path)) if "frame" in f]
        cols = []
        for key in ("encode_us", "transit_us", "decode_us", "latency_us"):
            a = [f[key] / 1000 for f in frames]
            cols.append(f"{pct(a, 0.5):.2f} / {pct(a, 0.99):.2f}")
        late = [f["latency_us"] / 1000 for f in frames[30:]]
        cols.append(f"{pct(late, 0.5):.2f} / {pct(late, 0.99):.2f}")
        concealed = sum(1 for f in frames if f["blocks_concealed"] > 0)
        print(f"{path.rsplit('/', 1)[-1]} | {len(frames)} | " + " | ".join(cols) + f" | {concealed}")


if __name__ == "__main__":
    main()
