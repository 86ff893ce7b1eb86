#!/usr/bin/env bats
# Hostile input for the control device (issue #14): test/helpers/rd-ioctl-fuzz
# sends tens of thousands of ioctls from several threads at once: numbers at
# and near rdmirror's, requests broken on purpose or by flipped bits, sizes
# at every edge, bad pointers, and adds, resizes, frees and removes of its
# own disks in between. It judges every answer against the errors the
# module can give for that request and exits 1 on any violation (see its
# header). Here: that, then no disk left, memory back, a clean kernel log
# (the common teardown), also across module reloads and without
# CAP_SYS_ADMIN. Each run prints its seed (with the command that runs it
# again), its errno table and any violation in the TAP output ("# " lines).
# The module's own KUnit cases (rdmirror_ctl) check each field alone; this
# checks what they cannot: the whole ioctl path, racing, with udev around.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"

setup() {
	rd_common_setup
	# Calls in the long run: 25000 took 13 s on 6.12 under TCG (30000:
	# 17-26 s), the whole file 74 s of VM time with the boot. The debug
	# kernel (KASAN, lockdep, kmemleak) makes every call several times
	# dearer: a third there (8000 took 35 s, the file 140 s).
	CALLS=25000
	[[ "$(uname -r)" != *-rdtest ]] || CALLS=8000
	SEED=$RANDOM$RANDOM
}
teardown() { rd_common_teardown; }

# fuzz_run COMMAND...: run it (an rd-ioctl-fuzz), its report to $T/fuzz.out,
# the test's output and the TAP output.
fuzz_run() {
	local rc=0
	"$@" >"$T/fuzz.out" 2>&1 || rc=$?
	sed 's/^/# /' "$T/fuzz.out" >&3
	cat "$T/fuzz.out"
	return "$rc"
}

# The rd disks that exist now, if any.
rd_left() {
	compgen -G '/sys/block/rd*' || true
}

@test "ioctl fuzz: every answer allowed, nothing left behind, memory back" {
	# Warm up what stays allocated once used (slab caches, udev's rules),
	# so that the two readings differ only by what the fuzz leaked.
	fuzz_run rd-ioctl-fuzz -t 2 -d 4 500 "$SEED"
	free0=$(mem_free_kib)
	fuzz_run rd-ioctl-fuzz -t 4 -d 8 -p 8 "$CALLS" "$SEED"
	[ -z "$(rd_left)" ]
	[ -e /sys/module/rdmirror ]
	free1=$(mem_free_kib)
	echo "free before $free0 KiB, after $free1 KiB"
	[ $((free0 - free1)) -lt 16384 ]
}

@test "ioctl fuzz across module reloads, one batch at max_disks=3" {
	local b
	free0=$(mem_free_kib)
	for b in 1 2 3; do
		rmmod rdmirror
		[ ! -e /dev/rdmirror-control ]
		if ((b == 2)); then
			# fewer disks than the fuzz wants: ENOSPC
			modprobe rdmirror max_disks=3
			[ "$(cat /sys/module/rdmirror/parameters/max_disks)" = 3 ]
		else
			modprobe rdmirror
		fi
		[ -c /dev/rdmirror-control ]
		fuzz_run rd-ioctl-fuzz -t 3 -d 6 $((CALLS / 12)) "$SEED$b"
		[ -z "$(rd_left)" ]
	done
	rmmod rdmirror
	[ ! -e /sys/module/rdmirror ]
	modprobe rdmirror
	free1=$(mem_free_kib)
	echo "free before $free0 KiB, after $free1 KiB"
	[ $((free0 - free1)) -lt 16384 ]
}

@test "ioctl fuzz without CAP_SYS_ADMIN: every request is EPERM, other numbers ENOTTY" {
	nocap="setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin"
	# shellcheck disable=SC2086 # the command is words
	fuzz_run $nocap rd-ioctl-fuzz -t 2 $((CALLS / 15)) "$SEED"
	# the fuzz expects EPERM for the four requests and ENOTTY for every
	# other number here; and no other answer came at all
	[ "$(awk '$1 == "request" { $1 = $1; print }' "$T/fuzz.out")" = "request calls ok EPERM ENOTTY" ]
	[ "$(awk '$1 == "total" { print $3 }' "$T/fuzz.out")" = 0 ]
	[ -z "$(rd_left)" ]
}
