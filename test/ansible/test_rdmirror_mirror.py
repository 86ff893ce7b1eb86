#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the decision logic of the Ansible module rdmirror_mirror
(contrib/ansible/roles/rdmirror/library/rdmirror_mirror.py) against a fake
rdctl that keeps an array's state and answers --status, --convert and
--revert in rdctl's JSON (utils/rdctl.schema.json).

Prints "N tests, N failures" last; exits non-zero on a failure.
"""

import copy
import importlib.util
import json
import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULE = os.path.join(TOP, "contrib/ansible/roles/rdmirror/library/rdmirror_mirror.py")
spec = importlib.util.spec_from_file_location("rdmirror_mirror", MODULE)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)

UUID = "79387934:aaaad032:f56c6261:de230a86"
CONF_HEAD = "# kept\n"


# The local disks' stable names, and the kernel names they lead to.
DISK_A = "/dev/disk/by-id/nvme-Local_A"
DISK_B = "/dev/disk/by-id/nvme-Local_B"
DEVICES = {"/dev/md/data": "/dev/md0", DISK_A: "/dev/nvme0n1", DISK_B: "/dev/nvme1n1"}


def realpath(p):
    return DEVICES.get(p, p)


class FakeRdctl:
    """One RAID1 md0 of sdb and sdc. converted: configured, its fast
    member in it (rd0, or the disk MEMBER: its kernel name, kind "disk",
    member=MEMBER on its line), both disks write-mostly. Refuses --convert
    of a degraded array with rdctl's message, and records every command
    it was given."""

    def __init__(self, converted=False, degraded=False, status_rc=0, member=None):
        self.converted = converted
        self.degraded = degraded
        self.status_rc = status_rc
        self.member = member if converted else None
        self.wm = {"sdb": converted, "sdc": converted}
        self.calls = []
        self.conf = CONF_HEAD + (self._line() + "\n" if converted else "")

    def _line(self, member=None):
        member = member or self.member
        return "UUID=%s auto" % UUID + (" member=%s" % member if member else "")

    def _fast(self):
        if self.member:
            return realpath(self.member)[len("/dev/"):], "disk"
        return "rd0", "ram"

    def _status(self):
        members = [{"name": d, "kind": "persistent", "write_mostly": self.wm[d],
                    "in_sync": True, "role": "active", "state": "in_sync", "slot": i}
                   for i, d in enumerate(("sdb", "sdc"))]
        mirrors, arrays = [], []
        if self.converted:
            name, kind = self._fast()
            members.append({"name": name, "kind": kind, "write_mostly": False,
                            "in_sync": True, "role": "active", "state": "in_sync", "slot": 2})
            # (rdctl's mirror names the fast member in "rd", a disk's kernel
            # name too, and not its member=PATH: that is on its line)
            mirrors.append({"spec": "UUID=" + UUID, "line": 2, "array": "md0", "uuid": UUID,
                            "configured": True, "rd": name, "state": "in_sync"})
            arrays.append({"name": "md0", "level": "raid1", "state": "clean",
                           "raid_disks": 3, "degraded": 0, "members": members})
        return {"module": {}, "memory": {}, "disks": [], "arrays": arrays,
                "mirrors": mirrors, "warnings": [], "status": "OK"}

    def _change(self, op, dry, member=None):
        st = "planned" if dry else "done"
        line = self._line(member)
        if op == "convert":
            fast = ("mdadm /dev/md0 --add %s" % realpath(member) if member
                    else "rdctl --attach 1025M")
            steps = ["echo '%s' >> /etc/rdmirror.conf" % line,
                     fast, "mdadm --grow /dev/md0 --raid-devices=3"]
        else:
            steps = ["mdadm /dev/md0 --fail %s --remove %s" % ((self._fast()[0],) * 2),
                     "mdadm --grow /dev/md0 --raid-devices=2"]
        rd = realpath(member)[len("/dev/"):] if member else "rd0"
        return {op: {"array": "md0", "dry_run": dry, "uuid": UUID, "rd": rd,
                     "member_disk": member,
                     "size": 1025 << 20, "preallocated": False, "members": ["sdb", "sdc"],
                     "write_mostly_changed": [], "bitmap": "internal",
                     # (rdctl's dry run changed nothing: config.changed false)
                     "config": {"path": "/etc/rdmirror.conf", "line": line, "changed": not dry},
                     "mdadm_conf": {"listed": False, "line": None}, "sync": None,
                     "steps": [{"command": c, "status": st, "undo": False} for c in steps],
                     "notes": []}}

    def __call__(self, args):
        self.calls.append(list(args))
        if args[0] == "--status":
            return self.status_rc, json.dumps(self._status()), ""
        dry = "--dry-run" in args
        if args[0] == "--convert":
            if self.degraded:
                msg = "md0 is degraded (1 of 2 members missing): add a disk first"
                return 1, json.dumps({"error": {"code": "EINVAL", "message": msg}}), msg + "\n"
            member = args[args.index("--member") + 1] if "--member" in args else None
            if not dry:
                self.converted = True
                self.member = member
                self.wm = {"sdb": True, "sdc": True}
                self.conf = CONF_HEAD + self._line() + "\n"
            return 0, json.dumps(self._change("convert", dry, member)), ""
        if args[0] == "--revert":
            doc = self._change("revert", dry, self.member)
            if not dry:
                self.converted = False
                self.member = None
                self.wm = {"sdb": False, "sdc": False}
                self.conf = CONF_HEAD
            return 0, json.dumps(doc), ""
        return 2, json.dumps({"error": {"code": "USAGE", "message": "bad"}}), ""

    def read(self, path):
        return self.conf

    def changing(self):
        """Commands given that change something (not --status, not a dry run)."""
        return [c for c in self.calls if c[0] != "--status" and "--dry-run" not in c]


def params(**kw):
    p = {"array": "md0", "state": "present", "size": "auto", "member": "ram",
         "force": False, "prealloc": False, "ignore_memory": False, "ignore_kernel_bug": False,
         "wait": False, "timeout": None}
    p.update(kw)
    return p


def converge(fake, check=False, **kw):
    return mod.converge(params(**kw), check, fake, read=fake.read, realpath=realpath)


class Present(unittest.TestCase):
    def test_converts_fresh_array_changed(self):
        fake = FakeRdctl()
        r = converge(fake)
        self.assertTrue(r["changed"])
        self.assertEqual([c[0] for c in fake.changing()], ["--convert"])
        self.assertTrue(fake.converted)
        self.assertEqual(r["mirror"]["rd"], "rd0")

    def test_second_run_unchanged_and_runs_nothing(self):
        fake = FakeRdctl(converted=True)
        r = converge(fake)
        self.assertFalse(r["changed"])
        self.assertEqual(fake.changing(), [])

    def test_by_uuid_and_by_name_unchanged(self):
        for array in ("UUID=" + UUID.upper(), "/dev/md0", "/dev/md/data"):
            fake = FakeRdctl(converted=True)
            self.assertFalse(converge(fake, array=array)["changed"], array)
            self.assertEqual(fake.changing(), [], array)

    def test_exit_zero_without_change_is_unchanged(self):
        # rdctl exits 0 and says "done" but the status is the same: not changed
        fake = FakeRdctl(converted=True)
        fake.wm["sdc"] = False   # makes converge() ask for --convert
        orig = fake.__call__

        def no_op(args):
            if args[0] == "--convert":
                fake.calls.append(list(args))
                return 0, json.dumps(fake._change("convert", False)), ""
            return orig(args)
        r = mod.converge(params(), False, no_op, read=fake.read)
        self.assertFalse(r["changed"])

    def test_finishing_write_mostly_is_changed(self):
        fake = FakeRdctl(converted=True)
        fake.wm["sdc"] = False
        r = converge(fake)
        self.assertTrue(r["changed"])

    def test_status_with_warning_is_a_status(self):
        fake = FakeRdctl(converted=True, status_rc=3)
        self.assertFalse(converge(fake)["changed"])


class CheckMode(unittest.TestCase):
    def test_plan_and_nothing_changed(self):
        fake = FakeRdctl()
        r = converge(fake, check=True)
        self.assertTrue(r["changed"])
        self.assertFalse(fake.converted)
        self.assertEqual(fake.changing(), [])
        self.assertIn("--dry-run", fake.calls[-1])
        self.assertIn("mdadm --grow /dev/md0 --raid-devices=3", r["plan"])

    def test_diff_shows_the_line(self):
        fake = FakeRdctl()
        r = converge(fake, check=True)
        self.assertEqual(r["diff"]["before"], CONF_HEAD)
        self.assertEqual(r["diff"]["after"], CONF_HEAD + "UUID=%s auto\n" % UUID)

    def test_converted_is_unchanged(self):
        fake = FakeRdctl(converted=True)
        self.assertFalse(converge(fake, check=True)["changed"])

    def test_revert_plan_and_diff(self):
        fake = FakeRdctl(converted=True)
        r = converge(fake, check=True, state="absent")
        self.assertTrue(r["changed"])
        self.assertTrue(fake.converted)
        self.assertEqual(r["diff"]["after"], CONF_HEAD)


class DiskMember(unittest.TestCase):
    def test_disk_convert_changed(self):
        fake = FakeRdctl()
        r = converge(fake, member=DISK_A)
        self.assertTrue(r["changed"])
        conv = fake.changing()
        self.assertEqual(len(conv), 1)
        self.assertEqual(conv[0][:2], ["--convert", "md0"])
        self.assertEqual(conv[0][conv[0].index("--member") + 1], DISK_A)
        # a disk is used whole: rdctl takes no --size / --prealloc with it
        self.assertNotIn("--size", conv[0])
        self.assertNotIn("--prealloc", conv[0])
        self.assertEqual(fake.member, DISK_A)
        self.assertEqual(r["mirror"]["rd"], "nvme0n1")
        self.assertEqual(r["rdctl"]["member_disk"], DISK_A)

    def test_disk_second_run_unchanged(self):
        fake = FakeRdctl()
        converge(fake, member=DISK_A)
        n = len(fake.changing())
        for array in ("md0", "UUID=" + UUID, "/dev/md/data"):
            r = converge(fake, member=DISK_A, array=array)
            self.assertFalse(r["changed"], array)
            self.assertEqual(len(fake.changing()), n, array)
        self.assertFalse(converge(fake, check=True, member=DISK_A)["changed"])

    def test_ram_where_disk_asked_fails(self):
        fake = FakeRdctl(converted=True)
        with self.assertRaises(mod.RdctlError) as cm:
            converge(fake, member=DISK_A)
        self.assertIn("fast member is RAM (rd0), not the disk " + DISK_A, cm.exception.message)
        self.assertIn("revert it first (state: absent)", cm.exception.message)
        self.assertEqual(fake.changing(), [])

    def test_disk_where_ram_asked_fails(self):
        fake = FakeRdctl(converted=True, member=DISK_A)
        for check in (False, True):
            with self.assertRaises(mod.RdctlError) as cm:
                converge(fake, check=check)
            self.assertIn("fast member is the disk %s, not RAM" % DISK_A, cm.exception.message)
            self.assertIn("revert it first", cm.exception.message)
        self.assertEqual(fake.changing(), [])

    def test_other_disk_fails(self):
        fake = FakeRdctl(converted=True, member=DISK_A)
        with self.assertRaises(mod.RdctlError) as cm:
            converge(fake, member=DISK_B)
        self.assertIn("fast member is the disk %s (member=%s" % (DISK_A, DISK_A),
                      cm.exception.message)
        self.assertIn("not " + DISK_B, cm.exception.message)
        self.assertEqual(fake.changing(), [])

    def test_disk_in_array_not_at_path_fails(self):
        # the line names DISK_A, but DISK_A leads to another disk now than
        # the one in the array (compared by kernel name)
        fake = FakeRdctl(converted=True, member=DISK_A)
        fake.member = DISK_B            # the array holds nvme1n1
        with self.assertRaises(mod.RdctlError) as cm:
            converge(fake, member=DISK_A)
        self.assertIn("fast member is the disk nvme1n1, but %s is /dev/nvme0n1" % DISK_A,
                      cm.exception.message)
        self.assertEqual(fake.changing(), [])

    def test_configured_ram_member_missing_fails(self):
        # configured for RAM, its RAM member not back (no restore yet):
        # --convert --member would finish it as a RAM mirror
        fake = FakeRdctl(converted=True)
        fake.converted = False
        fake.conf = CONF_HEAD + "UUID=%s auto\n" % UUID
        orig = fake._status

        def status():
            doc = orig()
            doc["mirrors"] = [{"spec": "UUID=" + UUID, "line": 2, "array": "md0", "uuid": UUID,
                               "configured": True, "rd": None, "state": "missing"}]
            return doc
        fake._status = status
        with self.assertRaises(mod.RdctlError) as cm:
            converge(fake, member=DISK_A)
        self.assertIn("fast member is RAM, not the disk", cm.exception.message)
        self.assertEqual(fake.changing(), [])

    def test_check_mode_plan_and_diff(self):
        fake = FakeRdctl()
        r = converge(fake, check=True, member=DISK_A)
        self.assertTrue(r["changed"])
        self.assertFalse(fake.converted)
        self.assertEqual(fake.changing(), [])
        dry = fake.calls[-1]
        self.assertIn("--dry-run", dry)
        self.assertEqual(dry[dry.index("--member") + 1], DISK_A)
        self.assertIn("mdadm /dev/md0 --add /dev/nvme0n1", r["plan"])
        self.assertEqual(r["diff"]["before"], CONF_HEAD)
        self.assertEqual(r["diff"]["after"],
                         CONF_HEAD + "UUID=%s auto member=%s\n" % (UUID, DISK_A))

    def test_revert_disk_member(self):
        fake = FakeRdctl(converted=True, member=DISK_A)
        r = converge(fake, state="absent", member=DISK_A)
        self.assertTrue(r["changed"])
        self.assertEqual([c[0] for c in fake.changing()], ["--revert"])
        self.assertFalse(fake.converted)


class Absent(unittest.TestCase):
    def test_reverts_converted(self):
        fake = FakeRdctl(converted=True)
        r = converge(fake, state="absent")
        self.assertTrue(r["changed"])
        self.assertEqual([c[0] for c in fake.changing()], ["--revert"])
        self.assertFalse(fake.converted)

    def test_absent_twice_unchanged(self):
        fake = FakeRdctl()
        r = converge(fake, state="absent")
        self.assertFalse(r["changed"])
        self.assertEqual(fake.changing(), [])

    def test_present_never_reverts(self):
        fake = FakeRdctl(converted=True)
        converge(fake)
        self.assertFalse([c for c in fake.calls if c[0] == "--revert"])


class Refusals(unittest.TestCase):
    def test_rdctl_message(self):
        fake = FakeRdctl(degraded=True)
        with self.assertRaises(mod.RdctlError) as cm:
            converge(fake)
        self.assertEqual(cm.exception.message,
                         "md0 is degraded (1 of 2 members missing): add a disk first")
        self.assertEqual(cm.exception.code, "EINVAL")

    def test_rdctl_message_in_check_mode(self):
        fake = FakeRdctl(degraded=True)
        with self.assertRaises(mod.RdctlError) as cm:
            converge(fake, check=True)
        self.assertIn("degraded", cm.exception.message)

    def test_other_member_kinds_refused(self):
        for kind, why in (("compressed", "not built yet"), ("disk", "stable path"),
                          ("nvme", "unknown")):
            fake = FakeRdctl()
            with self.assertRaises(mod.RdctlError) as cm:
                converge(fake, member=kind)
            self.assertIn(why, cm.exception.message)
            self.assertIn("member is ram or a local disk's stable path", cm.exception.message)
            self.assertEqual(fake.calls, [], kind)

    def test_disk_options_that_do_not_go_with_it(self):
        for kw, why in (({"size": "2G"}, "used whole"), ({"prealloc": True}, "for a RAM member")):
            fake = FakeRdctl()
            with self.assertRaises(mod.RdctlError) as cm:
                converge(fake, member=DISK_A, **kw)
            self.assertIn(why, cm.exception.message)
            self.assertEqual(fake.calls, [], kw)
        fake = FakeRdctl()
        with self.assertRaises(mod.RdctlError) as cm:
            converge(fake, force=True)
        self.assertIn("force goes with a disk member only", cm.exception.message)
        self.assertEqual(fake.calls, [])

    def test_no_force_no_ignore_unless_named(self):
        fake = FakeRdctl()
        converge(fake)
        for c in fake.calls:
            self.assertFalse([a for a in c if a == "--force" or a.startswith("--ignore")], c)

    def test_force_only_when_named(self):
        fake = FakeRdctl()
        converge(fake, member=DISK_A)
        conv = [c for c in fake.calls if c[0] == "--convert"][0]
        self.assertNotIn("--force", conv)
        fake = FakeRdctl()
        converge(fake, member=DISK_A, force=True)
        conv = [c for c in fake.calls if c[0] == "--convert"][0]
        self.assertIn("--force", conv)

    def test_ignore_options_when_named(self):
        fake = FakeRdctl()
        converge(fake, ignore_memory=True)
        conv = [c for c in fake.calls if c[0] == "--convert"][0]
        self.assertIn("--ignore-memory", conv)
        self.assertNotIn("--ignore-kernel-bug", conv)
        self.assertNotIn("--force", conv)
        fake = FakeRdctl()
        converge(fake, ignore_kernel_bug=True)
        conv = [c for c in fake.calls if c[0] == "--convert"][0]
        self.assertIn("--ignore-kernel-bug", conv)
        self.assertNotIn("--ignore-memory", conv)


if __name__ == "__main__":
    res = unittest.TextTestRunner(stream=sys.stderr, verbosity=1).run(
        unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__]))
    bad = len(res.failures) + len(res.errors)
    print("ansible module: %d tests, %d failures" % (res.testsRun, bad))
    sys.exit(1 if bad else 0)
