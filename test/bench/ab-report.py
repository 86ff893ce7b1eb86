#!/usr/bin/python3
"""test/bench/ab's table: per workload, rd0/brd at once under each module
and the work tree's over REV's, from OUT/raw/ab-{a,b}--WORKLOAD--ROUND.json.

    ab-report.py OUT COMMAND REV
Writes OUT/ab.json and OUT/ab.md and prints the table.
"""
import json
import os
import statistics
import sys

from at_once import pair_ratios

out, command, rev = sys.argv[1], sys.argv[2], sys.argv[3]
# (module, workload) -> {round: rd0/brd}
ratios = pair_ratios(out, r"ab-([ab])--(.+)--(\d+)\.json$", lambda mod: ("rd0", "ram0"), "ab-report")

rows = []
for wl in sorted({wl for _, wl in ratios}):
    a, b = ratios.get(("a", wl), {}), ratios.get(("b", wl), {})
    both = sorted(set(a) & set(b))
    if not both:
        sys.exit(f"ab-report: {wl} has no round with both modules")
    q = [b[r] / a[r] for r in both]
    rows.append({"workload": wl, "rounds": len(both),
                 "a_rd_over_brd": statistics.median(a[r] for r in both),
                 "b_rd_over_brd": statistics.median(b[r] for r in both),
                 "b_over_a": statistics.median(q),
                 "b_led": sum(1 for x in q if x > 1.0),
                 "b_over_a_rounds": q})
if not rows:
    sys.exit(f"ab-report: no results in {out}/raw")

md = [f"Command: `{command}`; a = the module of {rev}, b = the work tree's.", "",
      "| workload | rd0/brd, a | rd0/brd, b | b/a | rounds b led |",
      "|---|---:|---:|---:|---:|"]
for r in rows:
    md.append(f"| {r['workload']} | {r['a_rd_over_brd']:.3f}x | {r['b_rd_over_brd']:.3f}x | "
              f"{r['b_over_a']:.3f}x | {r['b_led']} of {r['rounds']} |")
md.append("")
md.append("Medians of the rounds; each round's rd0/brd is one fio run with both devices "
          "at once, and b/a the quotient of the two in the same round.")
text = "\n".join(md) + "\n"
with open(os.path.join(out, "ab.md"), "w", encoding="utf-8") as f:
    f.write(text)
with open(os.path.join(out, "ab.json"), "w", encoding="utf-8") as f:
    json.dump({"command": command, "rev": rev, "rows": rows}, f, indent=2)
print(text, end="")
