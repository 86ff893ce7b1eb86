# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # out, err, tmp, here, broot, blog, conf, conf_text, uuid...: set by run-checks.sh, boot-checks.sh, mirror-checks.sh
# The mirror verbs (mirror/<verb>.c) step by step: a whole --create on
# blank disks, then --create, --convert, --revert and --refresh failing at
# each of their steps in turn, and --restore and --release at some. Each case's exit status, stdout, stderr, the
# log of the fake mdadm and ioctls (what was done and undone), the arrays'
# members afterwards and rdmirror.conf are compared with verb-steps.expected,
# written from the verbs as they were before they became step tables
# (mirror/verb.h): a step out of order, a missing undo or a changed message
# shows as a diff. Sourced by run-checks.sh after mirror-checks.sh, whose
# tree builders (raid1_tree, ram_mirror_tree) it uses.

saved_env="$RDCTL_SYSFS_ROOT|$RDCTL_PROC_ROOT|$RDCTL_DEV_ROOT"
export RDCTL_FAKE_LOG=$blog RDCTL_MDADM_CONF=$tmp/mdadm.conf
export RDCTL_SYSFS_ROOT=$broot/sys RDCTL_PROC_ROOT=$broot/proc RDCTL_DEV_ROOT=$broot/dev
# sdd and sde: blank disks (regular files the shim shows rdctl as block devices)
export RDCTL_FAKE_BLKDEV="$broot/dev/sdd=8:48 $broot/dev/sde=8:64"
export FAKE_MDADM_COUNTS=$tmp/mdadm-counts
sdd=$broot/dev/sdd sde=$broot/dev/sde
expected=$here/verb-steps.expected
got=$tmp/verb-steps.got
: >"$got"

# md0 as raid1_tree makes it, the blank disks sdd and sde (1 GiB + 1 MiB)
create_tree() {
	raid1_tree
	mkdir -p "$broot/sys/dev/block"
	for d in sdd:48 sde:64; do
		put "$broot/sys/class/block/${d%:*}/size" 2101248
		ln -s "../../block/${d%:*}" "$broot/sys/dev/block/8:${d#*:}"
		: >"$broot/dev/${d%:*}"
	done
}
# md0 with its RAM member rd0 in the highest slot, the disks write-mostly (--refresh)
refresh_tree() {
	boot_tree
	rd_member 0 in_sync
	put "$broot/sys/block/md0/md/dev-sdb/state" in_sync,write_mostly
	put "$broot/sys/block/md0/md/dev-sdc/state" in_sync,write_mostly
	put "$broot/sys/block/md0/md/degraded" 0
	printf '%s\nUUID=%s auto\n' "$conf_text" "$uuid" >"$conf"
}
# the same made by an older rdctl: RAM in slot 0, below the disks
refresh_old_tree() {
	refresh_tree
	put "$broot/sys/block/md0/md/dev-rd0/slot" 0
	put "$broot/sys/block/md0/md/dev-sdb/slot" 1
	put "$broot/sys/block/md0/md/dev-sdc/slot" 2
}

# step NAME ARGS...: run rdctl; its transcript goes to $got and is compared
# with NAME's in $expected
step() {
	local name=$1 rc f
	shift
	: >"$blog"
	rm -rf "$FAKE_MDADM_COUNTS"
	mkdir -p "$FAKE_MDADM_COUNTS"
	LD_PRELOAD=$shim "$rdctl" "$@" >"$out" 2>"$err"
	rc=$?
	{
		echo "=== $name"
		echo "exit $rc"
		echo "--- log"; cat "$blog"
		echo "--- stdout"; cat "$out"
		echo "--- stderr"; cat "$err"
		echo "--- md"
		for f in "$broot"/sys/block/md*/md/raid_disks "$broot"/sys/block/md*/md/dev-*/state \
			"$broot"/sys/block/md*/md/dev-*/slot; do
			[ ! -f "$f" ] || echo "${f#"$broot"/sys/block/} $(cat "$f")"
		done
		echo "--- rdmirror.conf"; cat "$conf" 2>/dev/null
		if [ -s "$RDCTL_MDADM_CONF" ]; then echo "--- mdadm.conf"; cat "$RDCTL_MDADM_CONF"; fi
	} | sed "s|$tmp|TMP|g" >"$tmp/step.got"
	cat "$tmp/step.got" >>"$got"
	awk -v n="=== $name" '$0 == n { on = 1; print; next } /^=== / { on = 0 } on' "$expected" >"$tmp/step.want"
	if [ ! -s "$tmp/step.want" ]; then fail "verb step '$name': not in $expected"
	elif diff -u "$tmp/step.want" "$tmp/step.got" >"$tmp/step.diff"; then pass
	else fail "verb step '$name' differs from $expected: $(cat "$tmp/step.diff")"; fi
}

# --- create: the whole of it, then failing at each step --------------------
create_tree
step "create" --create /dev/md1 "$sdd" "$sde" --config "$conf"
create_tree
step "create --json" --create /dev/md1 "$sdd" "$sde" --config "$conf" --json
validate "create --json" create
create_tree
step "create --bitmap none" --create /dev/md1 "$sdd" "$sde" --config "$conf" --bitmap none
create_tree
FAKE_MDADM_FAIL=create step "create: mdadm --create fails" --create /dev/md1 "$sdd" "$sde" --config "$conf"
create_tree
step "create: the size is too small" --create /dev/md1 "$sdd" "$sde" --config "$conf" --size 512M
create_tree
step "create: the configuration cannot be written" --create /dev/md1 "$sdd" "$sde" --config "$tmp/no-such-dir/rdmirror.conf"
create_tree
RDCTL_FAKE_IOCTL_ERRNO=ENOMEM step "create: the attach fails" --create /dev/md1 "$sdd" "$sde" --config "$conf"
create_tree
RDCTL_FAKE_WRITE_FAIL=md1/md/dev-sde/state:1 step "create: read-balancing fails" --create /dev/md1 "$sdd" "$sde" --config "$conf"
create_tree
RDCTL_FAKE_WRITE_FAIL=md1/md/dev-sde/state:2 step "create: write-mostly again fails" --create /dev/md1 "$sdd" "$sde" --config "$conf"
create_tree
FAKE_MDADM_FAIL=add step "create: the add fails" --create /dev/md1 "$sdd" "$sde" --config "$conf"
create_tree
FAKE_MDADM_FAIL=add step "create: the add fails, --json" --create /dev/md1 "$sdd" "$sde" --config "$conf" --json
expect_code "create: the add fails, --json" EIO
create_tree
FAKE_MDADM_FAIL="add stop" step "create: the add fails, the undo too" --create /dev/md1 "$sdd" "$sde" --config "$conf"
create_tree
FAKE_MDADM_FAIL=add step "create --bitmap none: the add fails" --create /dev/md1 "$sdd" "$sde" --config "$conf" --bitmap none
# no leak or memory error on the whole --create, nor on its undo
create_tree
vg "create" 0 --create /dev/md1 "$sdd" "$sde" --config "$conf"
create_tree
FAKE_MDADM_FAIL=add vg "create: the add fails" 1 --create /dev/md1 "$sdd" "$sde" --config "$conf"

# --- convert: the steps mirror-checks.sh does not fail, num-devices dropped --
raid1_tree
echo "ARRAY /dev/md0 metadata=1.2 num-devices=2 UUID=$uuid" >"$RDCTL_MDADM_CONF"
step "convert, num-devices in mdadm.conf" --convert /dev/md0 --config "$conf"
: >"$RDCTL_MDADM_CONF"
raid1_tree
RDCTL_FAKE_WRITE_FAIL=md0/md/dev-sdc/state step "convert: write-mostly fails" --convert /dev/md0 --config "$conf"
raid1_tree
md_put bitmap/backlog 256
RDCTL_FAKE_WRITE_FAIL=md0/md/bitmap/backlog step "convert: write-behind off fails" --convert /dev/md0 --config "$conf"
raid1_tree
FAKE_MDADM_FAIL_NTH=grow:1 step "convert: the grow fails" --convert /dev/md0 --config "$conf"

# --- revert: failing at each step, num-devices dropped -----------------------
ram_mirror_tree
FAKE_MDADM_FAIL=fail step "revert: the remove fails" --revert /dev/md0 --config "$conf"
ram_mirror_tree
echo "ARRAY /dev/md0 metadata=1.2 num-devices=3 UUID=$uuid" >"$RDCTL_MDADM_CONF"
step "revert, num-devices in mdadm.conf" --revert /dev/md0 --config "$conf"
: >"$RDCTL_MDADM_CONF"
ram_mirror_tree
FAKE_MDADM_FAIL=grow step "revert: the shrink fails" --revert /dev/md0 --config "$conf"
ram_mirror_tree
RDCTL_FAKE_IOCTL_ERRNO=EBUSY step "revert: the detach fails" --revert /dev/md0 --config "$conf"
ram_mirror_tree
RDCTL_FAKE_WRITE_FAIL=md0/md/dev-sdc/state step "revert: read-balancing fails" --revert /dev/md0 --config "$conf"

# --- refresh: failing at each step, with and without the compaction ------------
refresh_tree
FAKE_MDADM_FAIL=fail step "refresh: the remove fails" --refresh /dev/md0 --config "$conf"
refresh_tree
RDCTL_FAKE_IOCTL_ERRNO=EBUSY RDCTL_FAKE_IOCTL_ONLY=REMOVE step "refresh: the detach fails" --refresh /dev/md0 --config "$conf"
refresh_tree
RDCTL_FAKE_IOCTL_ERRNO=ENOMEM RDCTL_FAKE_IOCTL_ONLY=ADD step "refresh: the attach fails" --refresh /dev/md0 --config "$conf"
refresh_tree
FAKE_MDADM_FAIL=add step "refresh: the add fails" --refresh /dev/md0 --config "$conf"
refresh_old_tree
echo "ARRAY /dev/md0 metadata=1.2 num-devices=3 UUID=$uuid" >"$RDCTL_MDADM_CONF"
step "refresh old layout, num-devices in mdadm.conf" --refresh /dev/md0 --config "$conf"
: >"$RDCTL_MDADM_CONF"
refresh_old_tree
FAKE_MDADM_FAIL_NTH=grow:1 step "refresh old layout: the shrink fails" --refresh /dev/md0 --config "$conf"
refresh_old_tree
RDCTL_FAKE_IOCTL_ERRNO=ENOMEM RDCTL_FAKE_IOCTL_ONLY=ADD step "refresh old layout: the attach fails" --refresh /dev/md0 --config "$conf"
refresh_old_tree
FAKE_MDADM_FAIL=add step "refresh old layout: the add fails" --refresh /dev/md0 --config "$conf"
refresh_old_tree
FAKE_MDADM_FAIL_NTH=grow:2 step "refresh old layout: the grow back fails" --refresh /dev/md0 --config "$conf"

# --- restore and release: the steps of one array, failing -------------------
restore_tree() {	# md0 released: its RAM slot empty, its line in rdmirror.conf
	boot_tree
	printf 'md0 auto\n' >"$conf"
}
restore_tree
step "restore" --restore --config "$conf"
restore_tree
RDCTL_FAKE_IOCTL_ERRNO=ENOMEM RDCTL_FAKE_IOCTL_ONLY=ADD step "restore: the attach fails" --restore --config "$conf"
restore_tree
FAKE_MDADM_FAIL=add step "restore: the add fails" --restore --config "$conf"
restore_tree
RDCTL_FAKE_WRITE_FAIL=md0/md/dev-sdc/state step "restore: write-mostly fails" --restore --config "$conf"
refresh_tree
step "release" --release
refresh_tree
FAKE_MDADM_FAIL=fail step "release: the remove fails" --release
refresh_tree
RDCTL_FAKE_IOCTL_ERRNO=EBUSY RDCTL_FAKE_IOCTL_ONLY=REMOVE step "release: the detach fails" --release

IFS='|' read -r RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT <<<"$saved_env"
export RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT
unset RDCTL_FAKE_LOG RDCTL_MDADM_CONF RDCTL_FAKE_BLKDEV FAKE_MDADM_COUNTS
