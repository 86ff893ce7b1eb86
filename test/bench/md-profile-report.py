#!/usr/bin/python3
"""test/bench/md-profile's report: md0/md1 and rd0/ram0 at once, medians of
the rounds, from OUT/raw/{md,bare}--WORKLOAD--ROUND.json; and the two
mirrors' profiles (OUT/profile-{md0,md1}.txt, perf report -n --sort
dso,sym) as CPU time per read, with the driver's own part apart.

    md-profile-report.py OUT COMMAND REVISION
Writes OUT/md-profile.json and OUT/md-profile.md and prints the latter.
"""
import json
import os
import re
import statistics
import sys

from at_once import pair_ratios

out, command, revision = sys.argv[1], sys.argv[2], sys.argv[3]
# perf record's rate (test/bench/md-profile-guest): a cpu-clock sample
# stands for 1/HZ s of one CPU's time.
HZ = 2000
PAIRS = {"md": ("md0", "md1"), "bare": ("rd0", "ram0")}
# The kernel copies a RAM disk's read runs through: memcpy() (brd, and rd
# where copy_mc_to_kernel() has no machine-check-safe copy to use),
# copy_mc_*() (rd); and the page lookup both do, xas_load(). Other
# callers of these run in this workload too rarely to show.
DRIVER_SYMS = {"memcpy", "memcpy_orig", "__memcpy", "copy_mc_to_kernel",
               "copy_mc_fragile", "copy_mc_enhanced_fast_string", "xas_load"}

# A CPU with nothing to run (the guest's halt).
IDLE = {"pv_native_safe_halt", "default_idle", "native_safe_halt", "acpi_idle_do_entry"}

ratios = pair_ratios(out, r"(md|bare)--(.+)--(\d+)\.json$", PAIRS.get, "md-profile-report")
if not ratios:
    sys.exit(f"md-profile-report: no at-once results in {out}/raw")

at_once = []
for (case, wl), by_round in sorted(ratios.items()):
    rs = [by_round[r] for r in sorted(by_round)]
    at_once.append({"pair": "/".join(PAIRS[case]), "workload": wl, "rounds": len(rs),
                    "median": statistics.median(rs), "ahead": sum(r > 1 for r in rs),
                    "low": min(rs), "high": max(rs), "by_round": rs})

LINE = re.compile(r"^\s*([\d.]+)%\s+(\d+)\s+(\S+)\s+\[(.)\]\s+(\S.*?)\s*$")


def profile(md):
    """Samples per (dso, symbol), and the profiled fio run's reads."""
    samples = {}
    with open(os.path.join(out, f"profile-{md}.txt"), encoding="utf-8") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                key = (m.group(3), m.group(5))
                samples[key] = samples.get(key, 0) + int(m.group(2))
    if not samples:
        sys.exit(f"md-profile-report: no samples in {out}/profile-{md}.txt")
    with open(os.path.join(out, f"profile-{md}.json"), encoding="utf-8") as f:
        job = json.load(f)["jobs"][0]
    ios = job["read"]["total_ios"]
    if not ios:
        sys.exit(f"md-profile-report: the profiled run of {md} read nothing")
    return samples, ios


def driver(dso, sym):
    """Whether a sample is the RAM disk's own work under md."""
    return (dso.strip("[]") in ("rdmirror", "brd") or sym.startswith(("rd_", "brd_"))
            or sym in DRIVER_SYMS)


prof = {}
for md in ("md0", "md1"):
    samples, ios = profile(md)
    ns = {k: v / HZ / ios * 1e9 for k, v in samples.items()}
    idle = sum(v for (_, s), v in ns.items() if s in IDLE)
    prof[md] = {"reads": ios, "samples": sum(samples.values()), "ns": ns,
                "busy_ns_per_read": sum(ns.values()) - idle,
                "driver_ns_per_read": sum(v for (d, s), v in ns.items() if driver(d, s))}

# The two profiles run one after the other: the host's pace moves
# between them (under TCG by tens of percent), and with it every
# symbol's time per read. Shares of each run's busy CPU divide it out.
syms = {}
for md in ("md0", "md1"):
    busy = prof[md]["busy_ns_per_read"]
    prof[md]["driver_share"] = prof[md]["driver_ns_per_read"] / busy
    for (_, s), v in prof[md]["ns"].items():
        if s not in IDLE:
            syms.setdefault(s, {"md0": 0.0, "md1": 0.0})[md] += v / busy
diff = sorted(syms.items(), key=lambda kv: -abs(kv[1]["md0"] - kv[1]["md1"]))[:15]

md = [f"`{command}` ({revision})", "",
      "| pair | workload | median of rounds | rounds first ahead | low | high |",
      "|---|---|---|---|---|---|"]
for r in at_once:
    md.append(f"| {r['pair']} | {r['workload']} | {r['median']:.3f}x | {r['ahead']} of {r['rounds']} "
              f"| {r['low']:.3f}x | {r['high']:.3f}x |")
md += ["", "CPU time per 4 KiB read, QD32 x CPUs, each mirror alone under perf, one after "
       "the other (the host's pace moves between them: compare shares, not ns):", "",
       "| | md(rd0 + wm) | md(brd + wm) |", "|---|---|---|",
       f"| reads profiled | {prof['md0']['reads']} | {prof['md1']['reads']} |",
       f"| busy CPU (all but idle), ns per read | {prof['md0']['busy_ns_per_read']:.0f} "
       f"| {prof['md1']['busy_ns_per_read']:.0f} |",
       f"| the RAM disk's own (module, copy, lookup), ns per read | "
       f"{prof['md0']['driver_ns_per_read']:.0f} | {prof['md1']['driver_ns_per_read']:.0f} |",
       f"| the RAM disk's own, share of busy CPU | {prof['md0']['driver_share']:.1%} "
       f"| {prof['md1']['driver_share']:.1%} |",
       "", "Symbols whose shares of busy CPU differ most:", "",
       "| symbol | md(rd0 + wm) | md(brd + wm) |", "|---|---|---|"]
for s, v in diff:
    md.append(f"| {s} | {v['md0']:.1%} | {v['md1']:.1%} |")
text = "\n".join(md) + "\n"
with open(os.path.join(out, "md-profile.md"), "w", encoding="utf-8") as f:
    f.write(text)
with open(os.path.join(out, "md-profile.json"), "w", encoding="utf-8") as f:
    json.dump({"command": command, "revision": revision, "at_once": at_once,
               "profiles": {m: {k: v for k, v in p.items() if k != "ns"} for m, p in prof.items()}},
              f, indent=1)
print(text, end="")
