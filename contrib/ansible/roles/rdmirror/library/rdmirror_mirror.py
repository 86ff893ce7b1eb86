#!/usr/bin/python
# SPDX-License-Identifier: GPL-2.0
# -*- coding: utf-8 -*-
"""Ansible module rdmirror_mirror: one md RAID1 array's fast member (RAM,
or a local disk: member=PATH), as the inventory says, through rdctl
--convert / --revert and their JSON.

What must hold (test/ansible/test_rdmirror_mirror.py checks each):
- "changed" comes from rdctl's own JSON, the array's state in
  rdctl --status --json before and after the run, never from an exit
  status: an array already converted runs no rdctl command that changes
  anything and reports changed=false.
- Check mode runs only rdctl's --dry-run and returns its plan.
- A refusal of rdctl fails the task with rdctl's own message.
- --ignore-memory / --ignore-kernel-bug / --force are passed only when
  the task names them (--force only with a disk member: with --convert,
  rdctl takes it only with --member, where it overrides the blank check).
- A converted array counts as converted only with the fast member's kind
  (and disk) the task asks for: rdctl changes no kind in place, so a RAM
  member where a disk is asked (or the reverse, or another disk) fails
  the task, saying to revert first, and runs nothing.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

from ansible.module_utils.basic import AnsibleModule

DOCUMENTATION = r"""
---
module: rdmirror_mirror
short_description: Give an md RAID1 array a RAM or local-disk fast member with rdctl, or take it back
description:
  - Converts a running, in-sync md RAID1 array into an rdmirror mirror
    (C(rdctl --convert)) whose fast member is RAM or a local disk
    (C(--member PATH)), or reverts it (C(rdctl --revert)) when
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
    description: present gives the array a fast member; absent takes it out for good.
    type: str
    choices: [present, absent]
    default: present
  size:
    description: The RAM member's size (C(auto), or a size as rdctl takes it, 2G). A disk member is used whole (C(auto) only).
    type: str
    default: auto
  member:
    description:
      - The fast member. C(ram), or the local disk's stable path
        (C(/dev/disk/by-id/...)), passed as C(rdctl --convert --member PATH)
        and written to rdmirror.conf as C(member=PATH).
      - C(compressed) is refused (not built yet), as is any other value.
      - An array converted with another kind or disk fails the task:
        revert it first (O(state=absent)).
    type: str
    default: ram
  force:
    description:
      - With a disk O(member) only, pass --force - rdctl then uses a disk
        that holds a signature, destroying its contents. Overrides no other
        refusal.
    type: bool
    default: false
  prealloc:
    description: Allocate all of the RAM member's memory at once (--prealloc; RAM members only).
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

- name: Give md1 a local NVMe disk as its fast member
  rdmirror_mirror:
    array: /dev/md1
    member: /dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1234
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
# The fast member: "ram", or a disk's absolute path (rdctl --member PATH;
# rdctl refuses a kernel name such as /dev/sdb with the disk's stable
# names). "compressed" comes with "Bigger than RAM"; until then it is
# refused, never ignored.
NOT_YET = ("compressed",)


class RdctlError(Exception):
    """rdctl refused or failed: message is rdctl's own."""

    def __init__(self, message, code=None, cmd=None, plan=None):
        Exception.__init__(self, message)
        self.message = message
        self.code = code
        self.cmd = cmd
        self.plan = plan or []


def wanted_member(p):
    """The fast member the task asks for: ("ram", None) or ("disk", PATH).
    Raises RdctlError on a value rdctl cannot build or options that do not
    go with it (before any rdctl command, so also on a converged host)."""
    member = p.get("member") or "ram"
    if member == "ram":
        if p.get("force"):
            raise RdctlError("force goes with a disk member only (member: /dev/disk/by-id/...): "
                             "rdctl --convert takes --force only with --member")
        return "ram", None
    if member.startswith("/"):
        if (p.get("size") or "auto") != "auto":
            raise RdctlError("size: %s and member: %s cannot be used together: a member disk is "
                             "used whole (size: auto)" % (p.get("size"), member))
        if p.get("prealloc"):
            raise RdctlError("prealloc and member: %s cannot be used together: prealloc is for "
                             "a RAM member" % member)
        return "disk", member
    if member in NOT_YET:
        why = "not built yet (it comes with \"Bigger than RAM\")"
    elif member == "disk":
        why = "a kind, not a disk: name the disk by its stable path"
    else:
        why = "unknown"
    raise RdctlError("member '%s' is %s: member is ram or a local disk's stable path "
                     "(/dev/disk/by-id/...)" % (member, why))


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


def conf_member(conf, mirror):
    """member=PATH of MIRROR's line in the configuration text CONF (its
    line number is in rdctl's status), or None: a RAM member, or no line."""
    n = (mirror or {}).get("line")
    lines = conf.splitlines()
    if not mirror or not mirror.get("configured") or not n or not 1 <= n <= len(lines):
        return None
    for w in lines[n - 1].split("#", 1)[0].split():
        if w.lower().startswith("member="):
            return w[7:]
    return None


def current_member(mirror, md, conf):
    """The fast member ARRAY has or is configured for: ("ram", NAME),
    ("disk", NAME) with the kernel name of the disk in the array (None when
    it is not in it), or None when it has none. NAME of a disk member is
    also given as its configured path in the third item."""
    fast = None
    for x in (md or {}).get("members") or []:
        if x.get("kind") in ("ram", "disk"):
            fast = x
            break
    path = conf_member(conf, mirror)
    if fast is not None:
        return (fast["kind"], fast.get("name"), path)
    if path is not None:
        return ("disk", None, path)
    if mirror is not None and mirror.get("configured"):
        return ("ram", None, None)
    return None


def kind_mismatch(want, have, array, realpath=os.path.realpath):
    """Why the fast member ARRAY has (HAVE, of current_member()) is not the
    one asked for (WANT, of wanted_member()), or None when it is."""
    if have is None:
        return None
    kind, name, path = have
    revert = ("rdctl changes no fast member in place: revert it first (state: absent), "
              "then convert it again")
    if want[0] == "ram":
        if kind == "ram":
            return None
        return ("%s's fast member is the disk %s, not RAM (member: ram): %s"
                % (array, path or name, revert))
    if kind == "ram":
        return ("%s's fast member is RAM%s, not the disk %s: %s"
                % (array, " (%s)" % name if name else "", want[1], revert))
    # a disk asked for and a disk there: the same one (its configured
    # path, or another name of the same device), and the one in the array?
    if path is not None and path != want[1] and realpath(path) != realpath(want[1]):
        return ("%s's fast member is the disk %s (member=%s in %s), not %s: %s"
                % (array, path, path, CONFIG, want[1], revert))
    kname = os.path.basename(realpath(want[1]))
    if name is not None and name != kname:
        return ("%s's fast member is the disk %s, but %s is %s now: %s"
                % (array, name, want[1], "/dev/" + kname, revert))
    return None


def has_mirror(mirror):
    return mirror is not None and (mirror.get("configured") or mirror.get("rd"))


def convert_args(p, dry_run, want=("ram", None)):
    args = ["--convert", p["array"]]
    if want[0] == "disk":
        # a disk is used whole: rdctl takes no --size or --prealloc with it
        args += ["--member", want[1]]
        # rdctl's --force here overrides only the blank (no signature) check
        if p.get("force"):
            args.append("--force")
    else:
        args += ["--size", p.get("size") or "auto"]
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
    want = wanted_member(p)
    state = p.get("state") or "present"
    before_status = rdctl_json(run, ["--status"])
    mirror, md = find_mirror(before_status, p["array"], realpath)
    conf_before = read(CONFIG)
    result = {"changed": False, "mirror": mirror}
    if state == "present":
        # before converted(): a converted array of another kind is no
        # success, and rdctl --convert would finish it as it is
        why = kind_mismatch(want, current_member(mirror, md, conf_before),
                            (mirror or {}).get("array") or p["array"], realpath)
        if why:
            raise RdctlError(why)
        if converted(mirror, md):
            return result
        op, args = "convert", convert_args(p, check_mode, want)
    else:
        if not has_mirror(mirror):
            return result
        op, args = "revert", revert_args(p, check_mode)

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
            force=dict(type="bool", default=False),
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
