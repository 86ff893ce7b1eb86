#!/usr/bin/env python3
"""Summarise test/bench results: median IOPS and MB/s per device and job,
the rd0/brd ratio, written to results.json and printed as a table."""
import glob
import json
import os
import re
import statistics
import sys

out = sys.argv[1]
runs = {}
for path in glob.glob(os.path.join(out, "*-*-*-*.json")):
    m = re.match(r"(rd0|ram0)-(\w+)-(\w+)-(\d+)\.json$", os.path.basename(path))
    if not m:
        continue
    dev, rw, bs, _ = m.groups()
    with open(path, encoding="utf-8") as f:
        job = json.load(f)["jobs"][0]
    side = job["write"] if "write" in rw else job["read"]
    runs.setdefault((rw, bs), {}).setdefault(dev, []).append(
        (side["iops"], side["bw_bytes"] / 1e6))

results = []
for (rw, bs), devs in sorted(runs.items()):
    row = {"job": f"{rw} {bs}", "rounds": len(devs.get("rd0", []))}
    for dev, key in (("rd0", "rdmirror"), ("ram0", "brd")):
        vals = devs.get(dev, [])
        row[key] = {"iops": statistics.median(v[0] for v in vals),
                    "mb_per_s": statistics.median(v[1] for v in vals)}
    row["ratio"] = row["rdmirror"]["iops"] / row["brd"]["iops"]
    results.append(row)

with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as f:
    json.dump({"results": results}, f, indent=2)

print(f"\n{'job':14} {'rdmirror IOPS':>14} {'brd IOPS':>10} {'MB/s rd':>9} {'MB/s brd':>9} {'rd/brd':>7}")
for r in results:
    bar = "#" * round(r["ratio"] * 20)
    print(f"{r['job']:14} {r['rdmirror']['iops']:>14.0f} {r['brd']['iops']:>10.0f} "
          f"{r['rdmirror']['mb_per_s']:>9.1f} {r['brd']['mb_per_s']:>9.1f} {r['ratio']:>6.2f}x {bar}")
print("\n(# = 0.05x; 20 of them = as fast as brd. Medians of the rounds, psync QD1, one job.)")
print(f"results: {os.path.join(out, 'results.json')}")
