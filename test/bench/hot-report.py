#!/usr/bin/env python3
"""test/bench/hot's report: the per-second IOPS of the six curves that
test/bench/hot-guest left in OUT/raw (RUN.json: fio's JSON status every
second; RUN.meta: t=0 and the warming's end), the time each takes to reach
its steady rate, as OUT/hot.json, OUT/hot.md and OUT/hot.png (gnuplot).

    hot-report.py OUT COMMAND

Rules (stated in hot.md too):
- a curve's IOPS over each interval between two of fio's statuses: the
  difference of the jobs' cumulative total_ios over that of timestamp_ms,
  from t=0 (the moment the reader and the warming were started, 0 I/Os);
- steady rate: the median of the intervals ending in the last 10 s;
- a curve still rising at its end (median of its last 5 s above 1.15x that
  of the 5 s before, and above that of every earlier 5 s: a rate it never
  had before) has no steady rate inside the bench's time: its time to hot
  is "> SECONDS s", never a number. A curve that had the rate earlier and
  ends on a climb back from a dip (the host's swings under TCG) is not
  rising;
- time to hot: the start of the first of 3 consecutive intervals (about
  3 s) at or above 90% of the steady rate.
"""
import json
import os
import statistics
import subprocess
import sys

out, command = sys.argv[1], sys.argv[2]
raw = os.path.join(out, "raw")

RUNS = {
    "plain": "1. RAID1, page cache only",
    "preload": "2. RAID1, data set read in at t=0 (dd, as vmtouch -t)",
    "rdmirror": "3. RAM mirror, rdctl --restore at t=0",
}
READERS = {0: "buffered", 1: "O_DIRECT"}
HOT_FRACTION, HOT_RUN = 0.9, 3
STEADY_WINDOW, RISING = 10.0, 1.15


def die(msg):
    sys.exit(f"hot-report: {msg}")


def keyvals(path):
    try:
        with open(path, encoding="utf-8") as f:
            return dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
    except OSError as e:
        die(f"cannot read {path}: {e}")


def snapshots(path):
    """(timestamp_ms, total I/Os of all jobs) of every JSON document fio
    wrote to path (one per status, then the final one)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    dec, pos, snaps = json.JSONDecoder(), 0, []
    while True:
        pos = text.find("{", pos)
        if pos < 0:
            break
        try:
            doc, pos = dec.raw_decode(text, pos)
        except ValueError:
            break
        if "timestamp_ms" in doc and doc.get("jobs"):
            snaps.append((doc["timestamp_ms"], sum(j["read"]["total_ios"] for j in doc["jobs"])))
    return sorted(snaps)


def curve(name):
    """[(t_start, t_end, iops)] in seconds since t=0, and the meta."""
    meta = keyvals(os.path.join(raw, name + ".meta"))
    t0 = int(meta["t0_ms"])
    # t=0: the reader's first read (the guest's t0_ios: what it had done
    # when the guest saw it)
    points, last = [(t0, int(meta.get("t0_ios") or 0))], t0
    for ts, ios in snapshots(os.path.join(raw, name + ".json")):
        if ts <= t0:
            continue
        # the final document comes right after the last status: an
        # interval of a few ms is no measurement
        if ts - last >= 500:
            points.append((ts, ios))
            last = ts
    if len(points) < 4:
        die(f"{name}: fio left {len(points) - 1} statuses, no curve")
    iv = []
    for (ta, ia), (tb, ib) in zip(points, points[1:]):
        if ib < ia:
            die(f"{name}: fio's I/O count went down at {tb}")
        iv.append(((ta - t0) / 1000, (tb - t0) / 1000, (ib - ia) * 1000 / (tb - ta)))
    return iv, meta, t0, points


def secs_since(meta, key, t0):
    v = meta.get(key, "")
    return round((int(v) - t0) / 1000, 1) if v else None


def analyse(iv, limit):
    end = iv[-1][1]
    tail = [r for a, b, r in iv if b > end - STEADY_WINDOW]
    last5 = [r for a, b, r in iv if b > end - STEADY_WINDOW / 2]
    prev5 = [r for a, b, r in iv if end - STEADY_WINDOW < b <= end - STEADY_WINDOW / 2]
    steady = statistics.median(tail)
    rising = bool(last5 and prev5) and statistics.median(last5) > RISING * statistics.median(prev5)
    if rising:
        # every earlier whole 5 s window (a median of about five intervals,
        # which one interval's burst does not move), one ending at each
        # interval's end
        earlier = [statistics.median([r for a, b, r in iv if e - STEADY_WINDOW / 2 < b <= e])
                   for _, e, _ in iv if iv[0][0] + STEADY_WINDOW / 2 <= e <= end - STEADY_WINDOW / 2]
        rising = not earlier or statistics.median(last5) > max(earlier)
    hot = None
    if not rising:
        for i in range(len(iv) - HOT_RUN + 1):
            if all(r >= HOT_FRACTION * steady for a, b, r in iv[i:i + HOT_RUN]):
                hot = round(iv[i][0], 1)
                break
    return {"steady_iops": round(steady), "still_rising": rising, "hot_s": hot,
            "hot_text": f"{hot:.0f} s" if hot is not None else f"> {limit} s"}


def first_rate(points, t0, secs=2.0):
    """IOPS from t=0 to the status nearest `secs` s: the disks' rate before
    any warming shows (fio's start-up included)."""
    ts, ios = min(points[1:], key=lambda p: abs((p[0] - t0) / 1000 - secs))
    return round(ios * 1000 / (ts - t0))


cond = keyvals(os.path.join(out, "conditions"))
mib, limit = int(cond["data_mib"]), int(cond["seconds"])
results = {}
for run in RUNS:
    for direct in READERS:
        name = f"{run}-d{direct}"
        iv, meta, t0, points = curve(name)
        r = analyse(iv, limit)
        r.update({"run": run, "reader": READERS[direct],
                  "first_2s_iops": first_rate(points, t0),
                  "warm_end_s": secs_since(meta, "warm_end_ms", t0),
                  "copy_end_s": secs_since(meta, "copy_end_ms", t0),
                  "warm_start": meta.get("warm_start") == "1",
                  "curve": [{"t0": round(a, 3), "t1": round(b, 3), "iops": round(x)}
                            for a, b, x in iv]})
        if meta["warm"] != "none" and r["warm_end_s"] is None:
            r["warm_note"] = "not over inside the curve"
        results[name] = r

# How the figures scale with the data set. The page cache warms at the
# disks' random rate: each 4 KiB page is missed once, so ~pages / random
# IOPS (the last pages take the longest, but only a fixed fraction of
# misses is allowed at 90% of the RAM rate, so still linear in the size).
# The preload and the warm start's copy go at the disks' sequential rate,
# ~bytes / (MiB/s). All linear: a measured time scales by size / DATA_MIB.
pages = mib * 256
disk_iops = results["plain-d1"]["steady_iops"]
# A steady rate within 1.5x of the disks' own (O_DIRECT on 1. and 2.):
# nothing warms, "time to hot" is only the reader's start.
for r in results.values():
    r["disk_rate"] = r["steady_iops"] < 1.5 * disk_iops
    if r["disk_rate"] and not r["still_rising"]:
        r["hot_text"] += " (disks' rate)"
model_s = pages / disk_iops if disk_iops else None
pc = results["plain-d0"]["hot_s"]
pre = results["preload-d0"]["warm_end_s"]
rst = results["rdmirror-d0"]["warm_end_s"]
scale = {"pages": pages, "disk_random_iops": disk_iops,
         "page_cache_model_s": round(model_s, 1) if model_s else None,
         "page_cache_hot_s": pc, "preload_s": pre, "restore_s": rst,
         "md0_mib": int(cond["md0_bytes"]) >> 20}


def est(s, size_mib, of_mib=mib):
    """A time measured on of_mib MiB, scaled to size_mib."""
    if s is None:
        return None
    return s * size_mib / of_mib


def dur(s):
    if s is None:
        return "?"
    if s < 10:
        return f"{s:.1f} s"
    if s < 120:
        return f"{s:.0f} s"
    if s < 2 * 3600:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


# The warm start copies the whole array (a little more than the data set).
md0_mib = scale["md0_mib"]
for label, size in (("1GiB", 1024), ("100GiB", 100 * 1024)):
    scale[label] = {"page_cache_s": est(pc if pc is not None else model_s, size),
                    "preload_s": est(pre, size), "restore_s": est(rst, size, md0_mib),
                    "sequential_150MiBps_s": size / 150}

with open(os.path.join(out, "hot.json"), "w", encoding="utf-8") as f:
    json.dump({"command": command, "conditions": cond, "rules": {
        "steady": f"median of the last {STEADY_WINDOW:.0f} s",
        "hot": f"start of the first {HOT_RUN} consecutive ~1 s intervals >= {HOT_FRACTION:.0%} of steady",
        "still_rising": f"median of the last 5 s > {RISING}x the 5 s before and > every earlier 5 s"},
        "runs": results, "scaling": scale}, f, indent=1)
    f.write("\n")

md = [f"Command: `{command}` ({cond.get('date', '?')}, kernel {cond['kernel']}, qemu TCG, "
      f"{cond['cpus']} CPUs, fio {cond['fio'].removeprefix('fio-')}):", "",
      "| run | reader | time to hot (90% of steady) | steady IOPS (last 10 s) "
      "| IOPS, first 2 s | warming over at |",
      "|---|---|---:|---:|---:|---|"]
for name, r in results.items():
    warm = "–"
    if r["run"] == "preload":
        warm = f"preload {r['warm_end_s']} s" if r["warm_end_s"] is not None else "preload not over"
    elif r["run"] == "rdmirror":
        warm = (f"rd0 in sync {r['warm_end_s']} s (copy done {r['copy_end_s']} s)"
                if r["warm_end_s"] is not None else "rd0 not in sync inside the curve")
        if not r["warm_start"]:
            warm += ", by md's recovery: no warm start"
    hot = r["hot_text"] + (" (still rising)" if r["still_rising"] else "")
    md.append(f"| {RUNS[r['run']]} | {r['reader']} | {hot} | {r['steady_iops']:,} "
              f"| {r['first_2s_iops']:,} | {warm} |")
md += ["",
       f"Method: a {mib} MiB data set (random data) at the start of an md RAID1 of two HDD "
       "stand-ins that qemu throttles to 460 random-read IOPS and 150 MiB/s each; "
       "the page cache dropped (and for 3. the RAM member released by `rdctl --release`, "
       "its superblock kept, as at a shutdown), then the reader started; t=0 is its first read, "
       "the warming (if any) started then; the array held open throughout, as a mounted file system holds it (the kernel "
       "drops a block device's page cache at its last close). "
       f"Reader: fio 4 KiB randread, psync, 8 jobs, {limit} s, fio's default fadvise "
       "(POSIX_FADV_RANDOM: no readahead), uniform random (`--norandommap`); IOPS per ~1 s "
       "from fio's JSON status. Steady rate: the median of the last 10 s; time to hot: the start "
       "of the first 3 consecutive seconds at or above 90% of it (for O_DIRECT on 1. and 2. the "
       "steady rate is the disks' own). \"rd0 in sync\": rd0 in_sync, md idle, the warm start's "
       "copy over (polled every 0.2 s; md reads rd0 from its re-add, a little earlier). \"> N s\": the curve was still rising at its end, "
       "at a rate it had not had before (no steady rate inside the bench's time): the data set is too large for it.", ""]
pc_text = (f"{pc:.0f} s" if pc is not None else f"more than {limit} s")
sent = (f"Scaling: the page cache warms at the disks' random rate, each 4 KiB page missed once: "
        f"{pages:,} pages at the {disk_iops:,} IOPS measured with O_DIRECT is ~{dur(model_s)} "
        f"(measured: {pc_text} to hot), linear in the size: ~{dur(scale['1GiB']['page_cache_s'])} "
        f"for 1 GiB, ~{dur(scale['100GiB']['page_cache_s'])} for 100 GiB at these disks' rates. "
        f"The preload and the RAM mirror's copy are sequential reads: here {mib} MiB in {dur(pre)} "
        f"and the array's {md0_mib} MiB in {dur(rst)} to rd0 in sync, beside the reader, so "
        f"~{dur(scale['1GiB']['preload_s'])} and ~{dur(scale['1GiB']['restore_s'])} for 1 GiB, "
        f"~{dur(scale['100GiB']['preload_s'])} and ~{dur(scale['100GiB']['restore_s'])} for "
        f"100 GiB (at the disks' full 150 MiB/s: {dur(1024 / 150)} and "
        f"{dur(102400 / 150)}); the preload needs the page cache to hold the whole data set "
        f"and keep it, the RAM mirror RAM of its own. O_DIRECT readers never gain from the "
        f"page cache: only the RAM mirror takes them above the disks' rate.")
md += [sent, ""]
text = "\n".join(md)
with open(os.path.join(out, "hot.md"), "w", encoding="utf-8") as f:
    f.write(text)

# The chart: one panel per reader, the three runs' curves (log IOPS), a
# dashed line where the preload ended and where rd0 came in sync.
colours = {"plain": "#1f77b4", "preload": "#ff7f0e", "rdmirror": "#2ca02c"}
short = {"plain": "1. RAID1, page cache", "preload": "2. RAID1 + preload",
         "rdmirror": "3. RAM mirror"}
plots, arrows = {}, {}
for name, r in results.items():
    dat = os.path.join(out, f"curve-{name}.dat")
    with open(dat, "w", encoding="utf-8") as f:
        for p in r["curve"]:
            f.write(f"{p['t0']} {max(p['iops'], 1)}\n")
        f.write(f"{r['curve'][-1]['t1']} {max(r['curve'][-1]['iops'], 1)}\n")
    title = f"{short[r['run']]}: hot {r['hot_text']}"
    if r["warm_end_s"] is not None:
        what = "preload over" if r["run"] == "preload" else "rd0 in sync"
        title += f", {what} at {r['warm_end_s']} s (dashed)"
        arrows.setdefault(r["reader"], []).append(
            f"set arrow from {r['warm_end_s']}, graph 0 to {r['warm_end_s']}, graph 1 "
            f'nohead dt 2 lw 1.5 lc rgb "{colours[r["run"]]}"')
    plots.setdefault(r["reader"], []).append(
        f'"{dat}" using 1:2 with steps lw 2 lc rgb "{colours[r["run"]]}" title "{title}"')
gp = ['set terminal pngcairo size 1200,900 font ",10"',
      f'set output "{out}/hot.png"',
      f'set multiplot layout 2,1 title "Time to hot: {mib} MiB on a RAID1 of two throttled HDD '
      f'stand-ins, 8 x 4 KiB random readers from a cold start (kernel {cond["kernel"]}, qemu TCG)"',
      "set logscale y", "set grid xtics ytics", "set key bottom right noenhanced opaque",
      'set xlabel "seconds since t=0 (page cache dropped, RAM member released)"',
      'set ylabel "IOPS (log)"', f"set xrange [0:{limit + 2}]"]
for reader in ("buffered", "O_DIRECT"):
    gp.append("unset arrow")
    gp += arrows.get(reader, [])
    gp.append(f'set title "{reader} reader" noenhanced')
    gp.append("plot " + ", \\\n     ".join(plots[reader]))
gp.append("unset multiplot")
with open(os.path.join(out, "hot.gp"), "w", encoding="utf-8") as f:
    f.write("\n".join(gp) + "\n")
subprocess.run(["gnuplot", os.path.join(out, "hot.gp")], check=True)

print()
print(text)
print(f"results: {out}/hot.json, {out}/hot.md, {out}/hot.png")
