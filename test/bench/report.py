#!/usr/bin/env python3
"""make bench's report: medians of the fio rounds that test/bench/guest
left in OUT/raw/CASE--WORKLOAD--ROUND.json, the ratios (md/HDD, rd/brd,
rd/memcpy), the targets met or not, as OUT/results.json, OUT/results.md
(the tables of docs/BENCHMARKS.md) and OUT/bench.png (gnuplot).

    report.py OUT COMMAND
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys

out, command = sys.argv[1], sys.argv[2]

# The article this project started from: P. Koutoupis, "Rethinking RAID (on
# Linux)", ADMIN 62 (2021): fio 4 KiB, libaio, iodepth 32, direct. Only
# the drive figures the project's record holds are filled in (its SAS
# drive: about 460 random-read and 350 random-write IOPS); the others are
# left blank rather than quoted from memory.
ARTICLE = {
    ("hdd", "randread-qd32"): 460,
    ("hdd", "randwrite-qd32"): 350,
}

CASES = {
    "hdd": "1. one HDD",
    "hdd-raid1": "2. RAID1 of two HDDs",
    "rd0": "3. rd0",
    "brd": "4. brd /dev/ram0",
    "md-rd-hdd": "5. RAID1 rd0 + write-mostly HDD",
    "md-rd-2hdd": "6. RAID1 rd0 + two write-mostly HDDs",
    "md-brd-hdd": "7. RAID1 brd + write-mostly HDD",
    "md-rd-hdd-bitmap": "8. (5) with an internal bitmap",
    "rd0-iostats0": "rd0, iostats off",
    "rd0-iostats1": "rd0, iostats on",
}
WORKLOADS = {
    "randread-qd32": "4k randread, libaio QD32",
    "randwrite-qd32": "4k randwrite, libaio QD32",
    "randread-qd1-psync": "4k randread, psync QD1",
    "randread-qd32-jobs": "4k randread, libaio QD32 x CPUs",
    "randread-qd32-uring": "4k randread, io_uring QD32",
    "read-1m": "1M seq read, libaio QD8",
    "write-1m": "1M seq write, libaio QD8",
    "randread-1m": "1M randread, psync QD1, one CPU",
    "randread-fixed-1m": "1M randread, io_uring registered buffers QD1, one CPU",
}
# Latency percentiles kept from every job: fio's of the whole I/O
# (--lat_percentiles=1), in microseconds.
PCTS = ("50.000000", "99.000000", "99.900000")


def pcts(side):
    lat = side.get("lat_ns", {}).get("percentile") or side.get("clat_ns", {}).get("percentile") or {}
    return tuple((lat[p] / 1000 if p in lat else None) for p in PCTS)


runs = {}
# rd0 and brd at once (case "together"): per workload, one (rd0, brd)
# pair of (IOPS, MB/s) a round, from the same fio run.
pairs = {}
md_pairs = {}
# rd0 against rd1 at once: alike (the method's check), and with rd1's
# I/O statistics the other way
aa_pairs = {}
stat_pairs = {}
# rd0 against rd1 reading page by page (the previous read path), against
# null_blk with memory and without, md0 against its own rd0 (as set up,
# md0's statistics the other way, with a bitmap)
prev_pairs, nullmem_pairs, nullnone_pairs = {}, {}, {}
mdrd_pairs, mdrd_stats_pairs, mdrd_bitmap_pairs = {}, {}, {}
PAIRS = {"together": (("rd0", "ram0"), pairs), "together-md": (("md0", "md1"), md_pairs),
         "together-aa": (("rd0", "rd1"), aa_pairs),
         "together-iostats": (("rd0", "rd1"), stat_pairs),
         "together-prev": (("rd0", "rd1"), prev_pairs),
         "together-nullmem": (("rd0", "nullb0"), nullmem_pairs),
         "together-nullnone": (("rd0", "nullb1"), nullnone_pairs),
         "together-mdrd": (("md0", "rd0"), mdrd_pairs),
         "together-mdrd-stats": (("md0", "rd0"), mdrd_stats_pairs),
         "together-mdrd-bitmap": (("md0", "rd0"), mdrd_bitmap_pairs)}
for path in sorted(glob.glob(os.path.join(out, "raw", "*.json"))):
    m = re.match(r"(.+)--(.+)--(\d+)\.json$", os.path.basename(path))
    if not m:
        continue
    case, wl, _ = m.groups()
    with open(path, encoding="utf-8") as f:
        jobs = json.load(f)["jobs"]
    got = {}
    for job in jobs:
        side = job["write"] if "write" in wl else job["read"]
        got[job["jobname"]] = (side["iops"], side["bw_bytes"] / 1e6) + pcts(side)
    if case in PAIRS:
        (a, b), into = PAIRS[case]
        if set(got) != {a, b}:
            sys.exit(f"report: {path} holds jobs {sorted(got)}, not {a} and {b}")
        into.setdefault(wl, []).append((got[a], got[b]))
    else:
        runs.setdefault((case, wl), []).append(got[jobs[0]["jobname"]])


def med(case, wl, key="iops"):
    vals = runs.get((case, wl))
    if not vals:
        return None
    return statistics.median(v[0 if key == "iops" else 1] for v in vals)


def lat(case, wl, i):
    """The median over the rounds of percentile PCTS[i], in microseconds."""
    vals = [v[2 + i] for v in runs.get((case, wl), []) if v[2 + i] is not None]
    return statistics.median(vals) if vals else None


def spread(case, wl):
    vals = [v[0] for v in runs.get((case, wl), [])]
    if len(vals) < 2 or not statistics.median(vals):
        return None
    return (max(vals) - min(vals)) / statistics.median(vals)


def ratio(a, b):
    return a / b if a is not None and b else None


with open(os.path.join(out, "memcpy.json"), encoding="utf-8") as f:
    memcpy = json.load(f)
cond = {}
with open(os.path.join(out, "conditions"), encoding="utf-8") as f:
    for line in f:
        k, _, v = line.strip().partition("=")
        cond[k] = v
profiles = {}
for dev in ("rd0", "ram0"):
    p = os.path.join(out, f"profile-{dev}.txt")
    if os.path.exists(p):
        with open(p, encoding="utf-8") as f:
            profiles[dev] = f.read()

results = []
for (case, wl), vals in sorted(runs.items()):
    results.append({
        "case": case, "workload": wl, "rounds": len(vals),
        "iops": med(case, wl), "mb_per_s": med(case, wl, "mb"),
        "spread": spread(case, wl), "all_iops": [v[0] for v in vals],
        "article_iops": ARTICLE.get((case, wl)),
    })

rd_brd = {wl: ratio(med("rd0", wl), med("brd", wl)) for wl in WORKLOADS}


# rd0 / brd at once: the median over the rounds of each round's ratio
# (both devices measured in the same seconds), how many rounds rd0 led,
# and the lowest and highest round.
def at_once(wl, source=None):
    source = pairs if source is None else source
    key = 1 if wl.endswith("1m") else 0
    rs = [a[key] / b[key] for a, b in source.get(wl, []) if b[key]]
    if not rs:
        return None
    return {"ratio": statistics.median(rs), "rounds": len(rs),
            "rd_ahead": sum(r > 1 for r in rs), "low": min(rs), "high": max(rs),
            "rd0": statistics.median(a[key] for a, _ in source[wl]),
            "brd": statistics.median(b[key] for _, b in source[wl])}


together = {wl: at_once(wl) for wl in WORKLOADS}
md_together = {wl: at_once(wl, md_pairs) for wl in ("randread-qd32", "randread-qd32-jobs")}
CHECK_WL = ("randread-qd1-psync", "randread-qd32-jobs")
# the read workloads of the previous-rd and mirror-cost pairs (test/bench/guest's readwl)
READ_WL = ("randread-qd1-psync", "randread-qd32-jobs", "read-1m", "randread-1m")
prev_together = {wl: at_once(wl, prev_pairs) for wl in READ_WL}
NULLMEM_WL = ("randread-qd1-psync", "randread-qd32-jobs", "randwrite-qd32", "read-1m", "randread-1m")
NULLNONE_WL = ("randread-qd1-psync", "randread-qd32-jobs", "randread-1m", "randread-fixed-1m")
# the 1 MiB random reads that memcpy() is measured against
MEMCPY_WL = ("randread-1m", "randread-fixed-1m")
nullmem_together = {wl: at_once(wl, nullmem_pairs) for wl in NULLMEM_WL}
nullnone_together = {wl: at_once(wl, nullnone_pairs) for wl in NULLNONE_WL}
mdrd_together = {wl: at_once(wl, mdrd_pairs) for wl in READ_WL}
mdrd_stats_together = {wl: at_once(wl, mdrd_stats_pairs) for wl in READ_WL}
mdrd_bitmap_together = {wl: at_once(wl, mdrd_bitmap_pairs) for wl in READ_WL}
LAT_CASES = ("hdd", "hdd-raid1", "rd0", "md-rd-hdd", "md-brd-hdd")
LAT_WL = ("randread-qd1-psync", "randread-qd32")
latency = {case: {wl: [lat(case, wl, i) for i in range(len(PCTS))] for wl in LAT_WL}
           for case in LAT_CASES}
aa_together = {wl: at_once(wl, aa_pairs) for wl in CHECK_WL}
# rd0 / rd1 with rd1's statistics the other way: off/on is that ratio
# when the module's default is off, rd1 / rd0 when it is on
if cond.get("rd0_iostats", "1") == "1":
    stat_pairs = {wl: [(b, a) for a, b in ps] for wl, ps in stat_pairs.items()}
stat_together = {wl: at_once(wl, stat_pairs) for wl in CHECK_WL}
together_ratio = {wl: (t["ratio"] if t else None) for wl, t in together.items()}
# rd0 as the module sets it up, and rd0 with its I/O statistics the
# other way: off/on is what the statistics cost.
stats_default = cond.get("rd0_iostats", "1")
other = "rd0-iostats" + ("0" if stats_default == "1" else "1")
stats_on, stats_off = ("rd0", other) if stats_default == "1" else (other, "rd0")
stats_cost = {wl: ratio(med(stats_off, wl), med(stats_on, wl))
              for wl in WORKLOADS if med(other, wl)}
md_hdd = {wl: ratio(med(c, wl), med("hdd", wl))
          for wl in ("randread-qd32", "randwrite-qd32")
          for c in ("md-rd-hdd",)}
md_rd_brd = {wl: ratio(med("md-rd-hdd", wl), med("md-brd-hdd", wl))
             for wl in ("randread-qd32", "randread-qd32-jobs", "randwrite-qd32")}
# rd0's 1 MiB random reads over memcpy's 1 MiB copies, and over the same
# copies in the kernel's 8-byte moves (older runs' memcpy.json has none)
rd_memcpy = {wl: ratio(med("rd0", wl, "mb"), memcpy["copy_1m_mb_per_s"]) for wl in MEMCPY_WL}
rd_moves8 = {wl: ratio(med("rd0", wl, "mb"), memcpy.get("copy_1m_8byte_moves_mb_per_s"))
             for wl in MEMCPY_WL}
rd_memcpy_1m, rd_memcpy_1m_fixed = rd_memcpy["randread-1m"], rd_memcpy["randread-fixed-1m"]
rd_moves8_1m = rd_moves8["randread-1m"]
rd_memcpy_1m_seq = ratio(med("rd0", "read-1m", "mb"), memcpy["copy_1m_mb_per_s"])
rd_memcpy_4k = ratio(med("rd0", "randread-qd1-psync"), memcpy["copy_4k_per_s"])
bitmap_cost = ratio(med("md-rd-hdd-bitmap", "randwrite-qd32"), med("md-rd-hdd", "randwrite-qd32"))
md_w_hdd = ratio(med("md-rd-hdd", "randwrite-qd32"), med("hdd", "randwrite-qd32"))


def verdict(value, need):
    if value is None:
        return "not measured"
    return "met" if value >= need else "not met"


worst = min((v for v in rd_brd.values() if v is not None), default=None)
worst_at_once = min((v for v in together_ratio.values() if v is not None), default=None)
targets = [
    {"target": "rd0 >= 1.0x brd on every workload, in turn", "need": 1.0,
     "value": worst, "detail": "lowest rd/brd over the workloads, runs one after the other"},
    {"target": "rd0 >= 1.0x brd on every workload, at once", "need": 1.0,
     "value": worst_at_once, "detail": "lowest median of the rounds' rd/brd, both in one fio run"},
    {"target": "aim: rd0 >= 1.2x brd, multi-job randread (at once)", "need": 1.2,
     "value": together_ratio.get("randread-qd32-jobs")},
    {"target": "aim: rd0 >= 1.2x brd, 1 MiB seq read (at once)", "need": 1.2,
     "value": together_ratio.get("read-1m")},
    {"target": "aim: rd0 >= 1.2x brd, 1 MiB seq write (at once)", "need": 1.2,
     "value": together_ratio.get("write-1m")},
    {"target": "md(rd0+wm HDD) randread >= 1.0x md(brd+wm HDD), QD32, in turn", "need": 1.0,
     "value": md_rd_brd["randread-qd32"]},
    {"target": "md(rd0+wm HDD) randread >= 1.0x md(brd+wm HDD), QD32 x CPUs, in turn", "need": 1.0,
     "value": md_rd_brd["randread-qd32-jobs"]},
    {"target": "md(rd0+wm HDD) randread >= 1.0x md(brd+wm HDD), QD32, at once", "need": 1.0,
     "value": (md_together["randread-qd32"] or {}).get("ratio")},
    {"target": "md(rd0+wm HDD) randread >= 1.0x md(brd+wm HDD), QD32 x CPUs, at once", "need": 1.0,
     "value": (md_together["randread-qd32-jobs"] or {}).get("ratio")},
    {"target": "md randwrite (no bitmap) >= 0.95x one HDD", "need": 0.95,
     "value": md_w_hdd},
    {"target": "rd0 1 MiB random-place read >= 0.9x memcpy (1 MiB, one CPU), psync",
     "need": 0.9, "value": rd_memcpy_1m},
    {"target": "rd0 1 MiB random-place read >= 0.9x memcpy (1 MiB, one CPU), io_uring "
     "registered buffers", "need": 0.9, "value": rd_memcpy_1m_fixed},
    {"target": "rd0 >= 1.0x the previous rd (page by page), 1 MiB random read, at once",
     "need": 1.0, "value": (prev_together.get("randread-1m") or {}).get("ratio")},
]
for t in targets:
    t["verdict"] = verdict(t["value"], t["need"])

doc = {
    "command": command, "conditions": cond, "memcpy": memcpy,
    "results": results, "ratios": {
        "rd_over_brd": rd_brd, "rd_over_brd_at_once": together,
        "md_rd_over_md_brd_at_once": md_together,
        "rd0_over_rd1_alike_at_once": aa_together,
        "rd_iostats_off_over_on_at_once": stat_together,
        "rd_iostats_off_over_on": stats_cost,
        "md_rd_hdd_over_hdd": md_hdd, "md_rd_over_md_brd": md_rd_brd,
        "rd_randread_1m_over_memcpy_1m": rd_memcpy_1m,
        "rd_randread_fixed_1m_over_memcpy_1m": rd_memcpy_1m_fixed,
        "rd_read_1m_seq_over_memcpy_1m": rd_memcpy_1m_seq,
        "rd_randread_1m_over_8byte_moves_1m": rd_moves8_1m,
        "rd_over_previous_rd_at_once": prev_together,
        "rd_over_null_blk_memory_at_once": nullmem_together,
        "rd_over_null_blk_none_at_once": nullnone_together,
        "md_over_rd_at_once": mdrd_together,
        "md_over_rd_md_iostats_other_at_once": mdrd_stats_together,
        "md_over_rd_bitmap_at_once": mdrd_bitmap_together,
        "latency_us_p50_p99_p999": latency,
        "rd_randread_qd1_over_memcpy_4k": rd_memcpy_4k,
        "bitmap_over_none_randwrite": bitmap_cost,
    }, "targets": targets,
}
with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as f:
    json.dump(doc, f, indent=2)


def fmt(v, unit=""):
    if v is None:
        return "–"
    return f"{v:,.0f}{unit}".replace(",", " ")


def fx(v):
    return "–" if v is None else f"{v:.2f}x"


def pct(v):
    return "–" if v is None else f"±{v * 50:.0f}%"



def pair_rows(source, wls, a, b):
    """Rows of an at-once table: each device's figure, the ratio's median,
    rounds the first led, lowest and highest round."""
    rows = []
    for wl in wls:
        t = source.get(wl)
        suffix = " MB/s" if wl.endswith("1m") else ""
        if t is None:
            rows.append(f"| {WORKLOADS[wl]} | – | – | – | – | – |")
            continue
        rows.append(f"| {WORKLOADS[wl]} | {fmt(t['rd0'], suffix)} | {fmt(t['brd'], suffix)} | "
                    f"{fx(t['ratio'])} | {t['rd_ahead']} of {t['rounds']} | "
                    f"{fx(t['low'])}, {fx(t['high'])} |")
    return [f"| workload | {a} | {b} | {a}/{b}, median of rounds | rounds {a} ahead "
            "| lowest, highest round |", "|---|---:|---:|---:|---:|---:|"] + rows


md = []
md.append(f"Command: `{command}` (kernel {cond.get('kernel')}, qemu TCG, "
          f"{cond.get('cpus')} CPUs, {cond.get('rounds')} rounds of "
          f"{cond.get('seconds')} s per job after 1 s ramp, medians; guest CPU ERMS "
          f"{cond.get('erms', 'on')}; RAM devices "
          f"{cond.get('ram_mib')} MiB, written in full and checked before every read).")
md.append("")
md.append("### The article's table (4 KiB, libaio, iodepth 32, direct)")
md.append("")
md.append("| setup | randread IOPS | randwrite IOPS | article randread | article randwrite | randread / one HDD |")
md.append("|---|---:|---:|---:|---:|---:|")
for case in ("hdd", "hdd-raid1", "rd0", "brd", "md-rd-hdd", "md-rd-2hdd",
             "md-brd-hdd", "md-rd-hdd-bitmap"):
    r, w = med(case, "randread-qd32"), med(case, "randwrite-qd32")
    md.append(f"| {CASES[case]} | {fmt(r)} | {fmt(w)} | "
              f"{fmt(ARTICLE.get((case, 'randread-qd32')))} | "
              f"{fmt(ARTICLE.get((case, 'randwrite-qd32')))} | "
              f"{fx(ratio(r, med('hdd', 'randread-qd32')))} |")
md.append("")
md.append("### rd0 against brd, in turn (every workload)")
md.append("")
md.append(f"| workload | rd0 | brd | rd/brd | rd0, iostats {'off' if stats_default == '1' else 'on'} "
          "| iostats off/on | spread rd0, brd |")
md.append("|---|---:|---:|---:|---:|---:|---:|")
for wl, label in WORKLOADS.items():
    unit = "mb" if wl.endswith("1m") else "iops"
    suffix = " MB/s" if unit == "mb" else ""
    md.append(f"| {label} | {fmt(med('rd0', wl, unit), suffix)} | "
              f"{fmt(med('brd', wl, unit), suffix)} | {fx(rd_brd.get(wl))} | "
              f"{fmt(med(other, wl, unit), suffix)} | {fx(stats_cost.get(wl))} | "
              f"{pct(spread('rd0', wl))}, {pct(spread('brd', wl))} |")
md.append("")
md.append(f"IOPS unless marked MB/s. rd0 as the module sets it up: per-disk I/O statistics "
          f"{'on' if stats_default == '1' else 'off'}. Spread: half the range of the rounds, "
          "as a share of the median.")
md.append("")
md.append(f"### rd0 and brd at once ({cond.get('together_rounds', '–')} rounds)")
md.append("")
md.append("Both devices in one fio run, their jobs sharing the CPUs at the same "
          "moments (single-job workloads pinned to one CPU), so that the host's "
          "swings fall on both: the ratio is that of the cost per I/O.")
md.append("")
md += pair_rows(together, WORKLOADS, "rd0", "brd")
md.append("")
md.append("IOPS unless marked MB/s; each device's figure is its share of the CPUs.")
md.append("")
md.append("The method's check: rd0 against rd1, a second rd disk of the same size, "
          "filled, at once in the same way; alike (should be 1.0x), and with rd1's "
          "per-disk I/O statistics the other way (what the statistics cost).")
md.append("")
md.append("| workload | rd0/rd1 alike | lowest, highest round | iostats off/on | lowest, highest round |")
md.append("|---|---:|---:|---:|---:|")
for wl in CHECK_WL:
    a, t = aa_together.get(wl), stat_together.get(wl)
    md.append(f"| {WORKLOADS[wl]} | {fx(a['ratio'] if a else None)} | "
              f"{(fx(a['low']) + ', ' + fx(a['high'])) if a else '–'} | "
              f"{fx(t['ratio'] if t else None)} | "
              f"{(fx(t['low']) + ', ' + fx(t['high'])) if t else '–'} |")
md.append("")
md.append("### Mirrors: rd0 against brd as the RAM member")
md.append("")
md.append("| workload | md(rd0 + wm HDD) | md(brd + wm HDD) | rd/brd, in turn | rd/brd at once, median of rounds | rounds rd0 ahead |")
md.append("|---|---:|---:|---:|---:|---:|")
for wl in ("randread-qd32", "randread-qd32-jobs", "randwrite-qd32"):
    t = md_together.get(wl)
    md.append(f"| {WORKLOADS[wl]} | {fmt(med('md-rd-hdd', wl))} | "
              f"{fmt(med('md-brd-hdd', wl))} | {fx(md_rd_brd[wl])} | "
              f"{fx(t['ratio'] if t else None)} | "
              f"{(str(t['rd_ahead']) + ' of ' + str(t['rounds'])) if t else '–'} |")
md.append("")


md.append("### rd0 against the previous rd, at once")
md.append("")
md.append("rd1 reads page by page as rd did before (an RCU section and a walk from "
          "the xarray's root per 4 KiB; debugfs `read_per_page_mask`), rd0 walks a "
          "bio's pages in one descent; both filled, in one fio run.")
md.append("")
md += pair_rows(prev_together, READ_WL, "rd0", "previous rd")
md.append("")
md.append("### null_blk: a third RAM disk, and the block layer's floor, at once")
md.append("")
md.append("The kernel's null_blk made in configfs (blk-mq, completions inline, no "
          "I/O scheduler, I/O statistics as rd0's), 256 MiB: with `memory_backed=1` "
          "(filled first) a RAM disk of its own, without memory a disk that does "
          "nothing, so that its figure is what the block layer and fio cost alone.")
md.append("")
md += pair_rows(nullmem_together, NULLMEM_WL, "rd0", "null_blk memory")
md.append("")
md += pair_rows(nullnone_together, NULLNONE_WL, "rd0", "null_blk no memory")
md.append("")
for wl in NULLNONE_WL:
    t = nullnone_together.get(wl)
    if not t or wl in MEMCPY_WL:  # (1 MiB: the decomposition below)
        continue
    if t["ratio"] < 1:
        md.append(f"- {WORKLOADS[wl]}: rd's own share of a read (1 − rd0/null_blk "
                  f"without memory, at once): {(1 - t['ratio']) * 100:.0f}%.")
    else:
        md.append(f"- {WORKLOADS[wl]}: rd0 ahead of null_blk without memory "
                  f"({t['ratio']:.2f}x) in this run: there null_blk's blk-mq path (a "
                  "request and a tag per bio) cost more than all of rd's work.")
for wl in MEMCPY_WL:
    t, to_memcpy = nullnone_together.get(wl), rd_memcpy[wl]
    if not t or not to_memcpy:
        continue
    # rd0's time per MiB, in parts measured apart: the floor (null_blk's
    # share, at once), one copy of the MiB at the kernel's copy rate (the
    # 8-byte moves, in turn; glibc's memcpy() for older runs), the residual
    floor = t["ratio"]
    copy = rd_moves8[wl] or to_memcpy
    rest = 1 - floor - copy
    shown = (f"{rest * 100:.0f}%" if rest >= 0.005
             else "below what parts measured apart resolve")
    md.append(f"- {WORKLOADS[wl]}: of rd0's time, the block layer and fio "
              f"(rd0/null_blk without memory, at once) {floor * 100:.0f}%, one copy of "
              f"the MiB at the kernel's copy rate {copy * 100:.0f}%, the residual (rd's own "
              f"lookup, checks and calls, and the error of figures taken apart) {shown}. "
              f"A driver whose own work cost nothing would read at about "
              f"{to_memcpy / (floor + copy):.2f}x memcpy here.")
md.append("")
md.append("### The mirror's own cost: md(rd0 + wm HDD) against its rd0, at once")
md.append("")
md_stats_on = cond.get("md0_iostats", "1") == "1"
md.append(f"md0 as md sets it up (I/O statistics {'on' if md_stats_on else 'off'}, "
          "no bitmap), then with md0's statistics the other way, then with an "
          "internal bitmap; each against rd0 read directly, in one fio run.")
md.append("")
md.append(f"| workload | md0/rd0 | md0/rd0, md0 iostats {'off' if md_stats_on else 'on'} "
          "| md0/rd0, internal bitmap | lowest, highest round (as set up) |")
md.append("|---|---:|---:|---:|---:|")
for wl in READ_WL:
    t, st, bt = mdrd_together.get(wl), mdrd_stats_together.get(wl), mdrd_bitmap_together.get(wl)
    md.append(f"| {WORKLOADS[wl]} | {fx(t['ratio'] if t else None)} | "
              f"{fx(st['ratio'] if st else None)} | {fx(bt['ratio'] if bt else None)} | "
              f"{(fx(t['low']) + ', ' + fx(t['high'])) if t else '–'} |")
md.append("")
md.append("### Read latency (4 KiB random reads, µs, medians of the rounds' percentiles)")
md.append("")
md.append("| setup | QD1 p50 | QD1 p99 | QD1 p99.9 | QD32 p50 | QD32 p99 | QD32 p99.9 |")
md.append("|---|---:|---:|---:|---:|---:|---:|")


def us(v):
    return "–" if v is None else (f"{v:,.0f}".replace(",", " ") if v >= 100 else f"{v:.1f}")


for case in LAT_CASES:
    cells = [us(v) for wl in LAT_WL for v in latency[case][wl]]
    md.append(f"| {CASES[case].split('. ', 1)[-1]} | " + " | ".join(cells) + " |")
md.append("")
md.append("QD1: psync, one job; QD32: libaio, one job. fio's percentiles of the whole "
          "I/O (submission to completion) in the guest, whose clock runs under TCG.")
md.append("")
md.append("### The physical limit (memcpy on one CPU, same VM)")
md.append("")
md.append(f"| copy | memcpy | rd0 | rd0 / memcpy |")
md.append("|---|---:|---:|---:|")
md.append(f"| 1 MiB blocks from random places | {fmt(memcpy['copy_1m_mb_per_s'], ' MB/s')} | "
          f"{fmt(med('rd0', 'randread-1m', 'mb'), ' MB/s')} (1M randread, psync, CPU 0) | {fx(rd_memcpy_1m)} |")
md.append(f"| 1 MiB blocks from random places | {fmt(memcpy['copy_1m_mb_per_s'], ' MB/s')} | "
          f"{fmt(med('rd0', 'randread-fixed-1m', 'mb'), ' MB/s')} (1M randread, io_uring registered buffers, CPU 0) | "
          f"{fx(rd_memcpy_1m_fixed)} |")
md.append(f"| 1 MiB blocks | {fmt(memcpy['copy_1m_mb_per_s'], ' MB/s')} | "
          f"{fmt(med('rd0', 'read-1m', 'mb'), ' MB/s')} (1M seq read, libaio QD8) | {fx(rd_memcpy_1m_seq)} |")
md.append(f"| 4 KiB blocks | {fmt(memcpy['copy_4k_per_s'], ' /s')} | "
          f"{fmt(med('rd0', 'randread-qd1-psync'))} IOPS (4k randread QD1) | {fx(rd_memcpy_4k)} |")
md.append(f"| 1 MiB blocks from random places, in the kernel's 8-byte moves | "
          f"{fmt(memcpy.get('copy_1m_8byte_moves_mb_per_s'), ' MB/s')} | "
          f"{fmt(med('rd0', 'randread-1m', 'mb'), ' MB/s')} (1M randread, psync, CPU 0) | {fx(rd_moves8_1m)} |")
md.append("")
md.append("memcpy is glibc's (AVX2 in this guest). The last row times the same copies "
          "in the kernel's own instructions (memcpy_orig's loop of 8-byte moves, what "
          "the kernel's memcpy() is without FSRM): the ceiling for a copy the kernel makes.")
md.append("")
md.append("### Targets")
md.append("")
md.append("| target | measured | verdict |")
md.append("|---|---:|---|")
for t in targets:
    shown = "–" if t["value"] is None else f"{t['value']:.3f}x"
    md.append(f"| {t['target']} | {shown} | **{t['verdict']}** |")
md.append(f"| the bitmap's cost: md randwrite with internal bitmap / none "
          f"(chunk {cond.get('bitmap_chunk', 'mdadm default')}) | {fx(bitmap_cost)} | stated |")
md.append("")
text = "\n".join(md) + "\n"
with open(os.path.join(out, "results.md"), "w", encoding="utf-8") as f:
    f.write(text)

# The chart: the article's table (log IOPS) and rd/brd per workload.
with open(os.path.join(out, "chart-setups.dat"), "w", encoding="utf-8") as f:
    for case in ("hdd", "hdd-raid1", "rd0", "brd", "md-rd-hdd", "md-rd-2hdd",
                 "md-brd-hdd", "md-rd-hdd-bitmap"):
        label = CASES[case].split(". ", 1)[-1].replace("write-mostly", "wm")
        f.write(f"\"{label}\" {med(case, 'randread-qd32') or 0} "
                f"{med(case, 'randwrite-qd32') or 0}\n")
with open(os.path.join(out, "chart-ratios.dat"), "w", encoding="utf-8") as f:
    for wl, label in WORKLOADS.items():
        # three short lines under each cluster, or neighbours' labels meet
        label = label.replace(" registered buffers", ", registered bufs")
        label = label.replace(", ", "\\n")
        f.write(f"\"{label}\" {rd_brd.get(wl) or 0} {together_ratio.get(wl) or 0} "
                f"{stats_cost.get(wl) or 0}\n")
with open(os.path.join(out, "chart-latency.dat"), "w", encoding="utf-8") as f:
    for case in LAT_CASES:
        label = CASES[case].split(". ", 1)[-1].replace("write-mostly", "wm")
        vals = [v or 0 for wl in LAT_WL for v in latency[case][wl][:2]]
        f.write(f"\"{label}\" " + " ".join(str(v) for v in vals) + "\n")
gp = f"""
set terminal pngcairo size 1200,1350 font ",10"
set output "{out}/bench.png"
set multiplot layout 3,1 title "make bench: kernel {cond.get('kernel')}, qemu TCG, medians of {cond.get('rounds')} rounds"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set grid ytics
set logscale y
set ylabel "IOPS (log)"
set title "The article's table: 4 KiB, libaio, QD32, direct"
set xtics rotate by -20 noenhanced
plot "{out}/chart-setups.dat" using 2:xtic(1) title "randread", '' using 3 title "randwrite"
unset logscale y
set ylabel "ratio"
set yrange [0:*]
set title "rd0 / brd per workload (1.0 = as fast as brd)"
set key top left
set bmargin 4
set xtics norotate noenhanced
plot "{out}/chart-ratios.dat" using 2:xtic(1) title "rd0 / brd, in turn", \\
     '' using 3 title "rd0 / brd, at once", \\
     '' using 4 title "rd0 iostats off / on", 1 with lines lw 2 lc rgb "black" title "1.0"
set logscale y
set yrange [*:*]
set ylabel "microseconds (log)"
set title "4 KiB random read latency: p50 and p99, QD1 (psync) and QD32 (libaio)"
set key top right
plot "{out}/chart-latency.dat" using 2:xtic(1) title "QD1 p50", '' using 3 title "QD1 p99", \\
     '' using 4 title "QD32 p50", '' using 5 title "QD32 p99"
unset multiplot
"""
with open(os.path.join(out, "chart.gp"), "w", encoding="utf-8") as f:
    f.write(gp)
subprocess.run(["gnuplot", os.path.join(out, "chart.gp")], check=True)

print()
print(text)
for dev, prof in profiles.items():
    print(f"perf, {dev}, randread QD32 x CPUs (top symbols):")
    lines = prof.splitlines()
    print("\n".join(lines[:15]))
    # the device's own code, however far down the list it is (with
    # --kallsyms perf puts module symbols in [kernel.vmlinux])
    own = [ln for ln in lines[15:] if any(k in ln for k in ("[rdmirror]", " rd_", " brd_"))]
    if own:
        print(f"  ... and the device's own code further down ({dev}):")
        print("\n".join(own))
print(f"results: {out}/results.json, {out}/results.md, {out}/bench.png")
