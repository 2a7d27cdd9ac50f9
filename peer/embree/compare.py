#!/usr/bin/env python3
"""Summary of an H200 trace run: wavekit's rays/s per mesh, ray kind and kernel beside Embree's
(ratio wavekit / Embree), the compacted and persistent kernels against the baseline, subgroup
utilisation, and the build times. Reads the JSON lines of `wavekit trace bench --json` and of
peer/embree/trace.py."""
import json
import sys


def lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip().startswith("{")]


def main():
    wk = lines(sys.argv[1])
    em = lines(sys.argv[2]) if len(sys.argv) > 2 else []
    peer = {(e["mesh"], e["rays"]): e for e in em if e.get("record") == "embree_trace"}
    for b in (r for r in wk if r.get("record") == "build"):
        print(f"{b['mesh']}: {b['triangles']} triangles; CPU SAH {b['cpu_ms']:.0f} ms "
              f"(SAH {b['cpu']['sah']:.1f}); GPU LBVH {b['gpu_ms']:.2f} ms (SAH {b['gpu']['sah']:.1f})")
    traces = [r for r in wk if r.get("record") == "trace"]
    base = {(t["mesh"], t["rays"]): t for t in traces if t["kernel"] == "baseline"}
    print(f"{'mesh':<14} {'rays':<8} {'kernel':<11} {'Mrays/s':>9} {'x baseline':>10} "
          f"{'util nodes':>10} {'util tris':>9} {'Embree Mr/s':>11} {'x Embree':>8} mism")
    for t in traces:
        key = (t["mesh"], t["rays"])
        b = base.get(key)
        e = peer.get(key)
        u = t.get("utilisation") or {}
        un = u.get("node_tests", 0) / max(1, u.get("node_steps", 0) * u.get("width", 1))
        ut = u.get("tri_tests", 0) / max(1, u.get("tri_steps", 0) * u.get("width", 1))
        print(f"{t['mesh']:<14} {t['rays']:<8} {t['kernel']:<11} {t['rays_per_s'] / 1e6:9.1f} "
              f"{t['rays_per_s'] / b['rays_per_s'] if b else float('nan'):10.2f} {un:10.2f} {ut:9.2f} "
              f"{e['rays_per_s'] / 1e6 if e else float('nan'):11.1f} "
              f"{t['rays_per_s'] / e['rays_per_s'] if e else float('nan'):8.1f} "
              f"{t['mismatches']}/{e['mismatches'] if e else '-'}")


if __name__ == "__main__":
    main()
