#!/usr/bin/python
# SPDX-License-Identifier: GPL-2.0
# -*- coding: utf-8 -*-
"""Ansible module rdmirror_mirror: one md RAID1 array's RAM member, as
the inventory says, through rdctl --convert / --revert and their JSON.

What must hold (test/ansible/test_rdmirror_mirror.py checks each):
- "changed" comes from rdctl's own JSON, the array's state in
  rdctl --status --json before and after the run, never from an exit
  status: an array already converted runs no rdctl command that changes
  anything and reports changed=false.
- Check mode runs only rdctl's --dry-run and returns its plan.
- A refusal of rdctl fails the task with rdctl's own message.
- --ignore-memory / --ignore-kernel-bug are passed only when the task
  names them; --force is never passed (it belongs to rdctl --create).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

from ansible.module_utils.basic import AnsibleModule

DOCUMENTATION = r"""
---
module: rdmirror_mirror
short_description: Give an md RAID1 array a RAM member with rdctl, or take it back
description:
  - Converts a running, in-sync md RAID1 array into an rdmirror RAM mirror
    (C(rdctl --convert)), or reverts it (C(rdctl --revert)) when
    O(state=absent).
  - Reads C(rdctl --status --json) before and after, and reports changed
    only when the array's state there changed.
  - In check mode runs C(rdctl --dry-run) and returns its plan.
options:
  array:
    description: The array, as rdctl takes it (/dev/mdN, mdN, /dev/md/NAME or UUID=...).
    type: str
    required: true
  state:
    description: present gives the array a RAM member; absent takes it out for good.
    type: str
    choices: [present, absent]
    default: present
  size:
    description: The RAM member's size (C(auto), or a size as rdctl takes it, 2G).
    type: str
    default: auto
  member:
    description:
      - The fast member's kind. Only C(ram) exists today; any other value
        is refused.
    type: str
    default: ram
  prealloc:
    description: Allocate all of the RAM member's memory at once (--prealloc).
    type: bool
    default: false
  ignore_memory:
    description: Pass --ignore-memory (a size above the available memory).
    type: bool
    default: false
  ignore_kernel_bug:
    description: Pass --ignore-kernel-bug (a kernel with a known md bug).
    type: bool
    default: false
  wait:
    description: Wait until the RAM member is in sync (--wait).
    type: bool
    default: false
  timeout:
    description: With O(wait), give up after this many seconds (--timeout).
    type: int
author: rdmirror maintainers
"""

EXAMPLES = r"""
- name: Give md0 a RAM member
  rdmirror_mirror:
    array: UUID=79387934:aaaad032:f56c6261:de230a86
    size: auto
"""

RETURN = r"""
plan:
  description: The commands rdctl ran (or, in check mode, would run).
  type: list
  returned: when rdctl was asked to change something
rdctl:
  description: rdctl's JSON document of the --convert or --revert.
  type: dict
  returned: when rdctl was asked to change something
mirror:
  description: The array's entry in rdctl --status --json's mirrors after the run (null if none).
  type: dict
  returned: always
"""

CONFIG = "/etc/rdmirror.conf"
# Fast-member kinds rdctl builds. "compressed" and "disk" come with
# "Bigger than RAM"; until then they are refused, never ignored.
MEMBER_KINDS = ("ram",)
NOT_YET = ("compressed", "disk")


class RdctlError(Exception):
    """rdctl refused or failed: message is rdctl's own."""

    def __init__(self, message, code=None, cmd=None, plan=None):
        Exception.__init__(self, message)
        self.message = message
        self.code = code
        self.cmd = cmd
        self.plan = plan or []


def rdctl_json(run, args):
    """Run rdctl ARGS --json; return its document, or raise RdctlError
    with rdctl's message. --status exits 3 with a warning shown: that is
    a document, not a failure."""
    rc, out, err = run(args + ["--json"])
    try:
        doc = json.loads(out) if out.strip() else None
    except ValueError:
        doc = None
    if isinstance(doc, dict) and "error" in doc:
        e = doc["error"]
        raise RdctlError(e.get("message") or err.strip(), e.get("code"), args)
    ok = rc == 0 or (rc == 3 and "--status" in args)
    if not ok or not isinstance(doc, dict):
        raise RdctlError(err.strip() or "rdctl %s exited %d" % (" ".join(args), rc),
                         None, args)
    return doc


def kernel_name(array, realpath=os.path.realpath):
    """md's kernel name of ARRAY (md0), or None for a UUID= or a
    /dev/md/NAME that does not exist."""
    if array.upper().startswith("UUID="):
        return None
    if array.startswith("/dev/md/"):
        target = realpath(array)
        if target == array:
            return None
        return os.path.basename(target)
    return os.path.basename(array)


def find_mirror(status, array, realpath=os.path.realpath):
    """(mirror, md_array) of ARRAY in a --status document; None where
    absent. A mirror is a configuration line or an array with an rd
    member."""
    kname = kernel_name(array, realpath)
    uuid = array[5:].lower() if array.upper().startswith("UUID=") else None
    mirror = None
    for m in status.get("mirrors") or []:
        if uuid is not None and (m.get("uuid") or "").lower() == uuid:
            mirror = m
        elif kname is not None and (m.get("array") == kname or m.get("spec") in
                                    (array, kname, "/dev/" + kname)):
            mirror = m
        elif m.get("spec") == array:
            mirror = m
        if mirror is not None:
            break
    name = (mirror or {}).get("array") or kname
    md = None
    for a in status.get("arrays") or []:
        if name is not None and a.get("name") == name:
            md = a
    return mirror, md


def state_key(mirror, md):
    """What "changed" is judged on: the array's entry in rdctl's status
    (configured, RAM member, its configuration line) and its members'
    write-mostly flags and slots count."""
    members = []
    raid_disks = None
    if md is not None:
        raid_disks = md.get("raid_disks")
        members = sorted((x.get("name"), x.get("kind"), bool(x.get("write_mostly")))
                         for x in md.get("members") or [])
    if mirror is None:
        return (False, None, None, raid_disks, tuple(members))
    return (bool(mirror.get("configured")), mirror.get("rd"), mirror.get("line"),
            raid_disks, tuple(members))


def converted(mirror, md):
    """ARRAY needs nothing from --convert: configured, with a RAM member,
    every persistent member write-mostly."""
    if mirror is None or not mirror.get("configured") or not mirror.get("rd"):
        return False
    if md is None:
        return False
    return all(x.get("write_mostly") for x in md.get("members") or []
               if x.get("kind") == "persistent" and x.get("role") != "faulty")


def has_mirror(mirror):
    return mirror is not None and (mirror.get("configured") or mirror.get("rd"))


def convert_args(p, dry_run):
    args = ["--convert", p["array"], "--size", p.get("size") or "auto"]
    if p.get("prealloc"):
        args.append("--prealloc")
    # Each skips a refusal of rdctl: only when the inventory names it.
    if p.get("ignore_memory"):
        args.append("--ignore-memory")
    if p.get("ignore_kernel_bug"):
        args.append("--ignore-kernel-bug")
    if dry_run:
        args.append("--dry-run")
    elif p.get("wait"):
        args.append("--wait")
        if p.get("timeout"):
            args += ["--timeout", str(p["timeout"])]
    return args


def revert_args(p, dry_run):
    args = ["--revert", p["array"]]
    if dry_run:
        args.append("--dry-run")
    return args


def conf_after_plan(before, doc, op, mirror):
    """The configuration file's text once the plan in DOC ran (check
    mode's --diff): --convert appends its line to a file that has none
    for the array, --revert drops the array's line. (A dry run's
    config.changed is false: it changed nothing.)"""
    cfg = doc.get("config") or {}
    lines = before.splitlines(True)
    if op == "convert":
        line = cfg.get("line")
        configured = mirror is not None and mirror.get("configured")
        if line and not configured and line not in [x.rstrip("\n") for x in lines]:
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            lines.append(line + "\n")
    elif mirror is not None and mirror.get("line"):
        n = mirror["line"]
        if 1 <= n <= len(lines):
            del lines[n - 1]
    return "".join(lines)


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except (IOError, OSError):
        return ""


def converge(p, check_mode, run, read=read_text, realpath=os.path.realpath):
    """The decision: returns the module's result (a dict) or raises
    RdctlError. RUN(args) -> (rc, stdout, stderr) runs rdctl."""
    member = p.get("member") or "ram"
    if member not in MEMBER_KINDS:
        why = ("not built yet (it comes with \"Bigger than RAM\")"
               if member in NOT_YET else "unknown")
        raise RdctlError("member kind '%s' is %s: rdmirror makes RAM members only "
                         "(member: ram)" % (member, why))
    state = p.get("state") or "present"
    before_status = rdctl_json(run, ["--status"])
    mirror, md = find_mirror(before_status, p["array"], realpath)
    result = {"changed": False, "mirror": mirror}
    if state == "present":
        if converted(mirror, md):
            return result
        op, args = "convert", convert_args(p, check_mode)
    else:
        if not has_mirror(mirror):
            return result
        op, args = "revert", revert_args(p, check_mode)

    conf_before = read(CONFIG)
    try:
        doc = rdctl_json(run, args)
    except RdctlError as e:
        e.cmd = ["rdctl"] + args
        raise
    change = doc.get(op) or {}
    result["rdctl"] = change
    result["plan"] = [s.get("command") for s in change.get("steps") or []]
    result["notes"] = change.get("notes") or []
    if check_mode:
        # Would change: rdctl planned a step or a configuration edit.
        result["changed"] = bool(result["plan"]) or bool((change.get("config") or {}).get("changed"))
        conf_after = conf_after_plan(conf_before, change, op, mirror)
    else:
        after_status = rdctl_json(run, ["--status"])
        mirror_after, md_after = find_mirror(after_status, p["array"], realpath)
        result["mirror"] = mirror_after
        result["changed"] = state_key(mirror, md) != state_key(mirror_after, md_after)
        conf_after = read(CONFIG)
    result["diff"] = {"before": conf_before, "after": conf_after,
                      "before_header": CONFIG, "after_header": CONFIG}
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(
            array=dict(type="str", required=True),
            state=dict(type="str", default="present", choices=["present", "absent"]),
            size=dict(type="str", default="auto"),
            member=dict(type="str", default="ram"),
            prealloc=dict(type="bool", default=False),
            ignore_memory=dict(type="bool", default=False),
            ignore_kernel_bug=dict(type="bool", default=False),
            wait=dict(type="bool", default=False),
            timeout=dict(type="int"),
        ),
        supports_check_mode=True,
    )
    rdctl = module.get_bin_path("rdctl", required=True, opt_dirs=["/usr/sbin", "/sbin"])

    def run(args):
        return module.run_command([rdctl] + args, environ_update={"LC_ALL": "C"})

    try:
        result = converge(module.params, module.check_mode, run)
    except RdctlError as e:
        module.fail_json(msg=e.message, rdctl_code=e.code,
                         cmd=" ".join(e.cmd) if e.cmd else None)
    if not module._diff or not result["changed"]:
        result.pop("diff", None)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
