"""The fio JSON of test/bench's at-once runs (lib.sh's at_once: one fio
run, a job group per device, named after it) as per-round ratios, for the
reports that read them (ab-report.py, md-profile-report.py)."""
import glob
import json
import os
import re
import sys


def pair_ratios(out, pattern, pair, who):
    """{(key, workload): {round: a's read IOPS / b's}} from OUT/raw/*.json
    whose names match PATTERN (groups: key, workload, round), where
    (a, b) = PAIR(key): a file holding other jobs, or b without reads,
    stops the report (WHO names it in the message)."""
    ratios = {}
    for path in sorted(glob.glob(os.path.join(out, "raw", "*.json"))):
        m = re.match(pattern, os.path.basename(path))
        if not m:
            continue
        key, wl, rnd = m.group(1), m.group(2), int(m.group(3))
        with open(path, encoding="utf-8") as f:
            got = {job["jobname"]: job["read"]["iops"] for job in json.load(f)["jobs"]}
        a, b = pair(key)
        if set(got) != {a, b} or not got[b]:
            sys.exit(f"{who}: {path} holds jobs {sorted(got)}, not {a} and {b} with reads")
        ratios.setdefault((key, wl), {})[rnd] = got[a] / got[b]
    return ratios
