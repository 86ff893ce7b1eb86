# shellcheck shell=bash
# Shared by every bats file of the VM suite. Each test starts with no rd
# disk and no md array, and fails if the kernel logged a bug while it ran.

# Kernel log lines that mean the test hit a kernel bug.
# What a kernel says when it finds a bug: oopses and warnings, KASAN, and
# lockdep's reports (the debug-kernel pass has KASAN and lockdep on).
RD_KERNEL_BAD='BUG|WARNING|Oops|Call Trace|KASAN|kmemleak|possible recursive locking|circular locking|inconsistent lock state|suspicious RCU usage|lock inversion|bad unlock balance|held lock freed|lock held when returning|INFO: task .* blocked'

# rd_kernel_bad: the lines of a kernel log (stdin) that mean a bug. Not
# kmemleak's periodic "N new suspected memory leaks": its background scan
# prints that during whatever test runs then, about objects of any age
# and owner; the debug pass judges leaks from the full report after the
# suite, with rdmirror's modules unloaded (test/kunit/guest-after, report).
rd_kernel_bad() {
	grep -E "$RD_KERNEL_BAD" | grep -vE 'kmemleak: [0-9]+ new suspected memory leaks?( |$)' || true
}

# Every process costs up to a second on the debug kernel under TCG, so
# setup and teardown fork as little as they can: a marker in the kernel
# log instead of counting its lines, sysfs read with builtins.

# rd_hdd_writes VAR: writes completed by the persistent-member stand-ins,
# from their stat, into VAR (no command substitution: that forks).
rd_hdd_writes() {
	local d stat total=0
	for d in $RD_TEST_HDDS; do
		read -ra stat <"/sys/block/$d/stat"
		total=$((total + stat[4]))
	done
	printf -v "$1" '%s' "$total"
}

# rd_debug_kernel: true on the debug kernel (test/kernel/build, its
# release ends in "-rdtest"), where KASAN, lockdep and kmemleak make every
# page copied and every process started several times dearer under TCG:
# some tests do fewer rounds of the same work there.
rd_debug_kernel() {
	local rel
	read -r rel </proc/sys/kernel/osrelease
	[[ "$rel" == *-rdtest ]]
}

rd_common_setup() {
	# bats runs its DEBUG trap before every command (to name a failure's
	# line): about 3 ms a command on the debug kernel under TCG, 17 times
	# a bare command's cost, and half of a teardown there. Functrace off:
	# the functions called from here on (the helpers, bats' run, the
	# teardown) go untraced; the lines of the test and of setup itself
	# are still followed (bats entered them with the trap). A failure in
	# a helper is reported at the test's line that called it, one the
	# teardown finds at the test's last line; errexit and the ERR trap
	# (set -E) are as before (harness.bats).
	set +T
	RD_LOG_MARK="rdtest: start of test $BATS_SUITE_TEST_NUMBER ($RANDOM$RANDOM)"
	echo "$RD_LOG_MARK" >/dev/kmsg
	# for test/vm/watchdog's report, should the test hang
	if [[ -n "${RD_CURRENT_TEST:-}" ]]; then
		printf '%s %s: %s\n' "${BATS_TEST_FILENAME##*/}" "$BATS_SUITE_TEST_NUMBER" \
			"$BATS_TEST_DESCRIPTION" >"$RD_CURRENT_TEST" || true
	fi
	rd_hdd_writes RD_HDD_WRITES
	T=$BATS_TEST_TMPDIR
	# warm-start records (utils/mirror/warm_record.h): the test's, not the host's
	# /var/lib/rdmirror; missing, so --release keeps none unless a test
	# makes the directory (warmup.bats)
	export RDCTL_STATE_DIR=$T/state
	[[ -d /sys/module/rdmirror ]] || modprobe rdmirror
}

# rd_use_test_module: the test build of the module (RDMIRROR_TEST=1,
# test/vm/build-module) in place of the installed one, for the debugfs
# files that name a sector's page frame. Nothing may use the module yet
# (call it from setup, before any disk). rd_drop_test_module in teardown
# unloads it, so that the next suite loads the installed one again.
rd_use_test_module() {
	local ko deps
	ko=$RD_TOP/build/$(uname -r)/module/rdmirror.ko
	[[ ! -e /sys/kernel/debug/rdmirror/pfn ]] || return 0
	[[ -f "$ko" ]] || { echo "no test build of the module: $ko" >&2; return 1; }
	rd_cleanup
	modprobe -r rdmirror
	# insmod loads no dependency: the compressors the module uses
	# (lz4_compress on Debian's kernels) first, as modprobe would
	IFS=, read -ra deps <<<"$(modinfo -F depends "$ko")"
	((${#deps[@]} == 0)) || modprobe -a "${deps[@]}"
	insmod "$ko"
	[[ -e /sys/kernel/debug/rdmirror/pfn ]]
}

rd_drop_test_module() {
	# the debug kernel loads the test build for every suite: keep it there
	if [[ ! -e /sys/kernel/debug/rdmirror/pfn ]] || rd_debug_kernel; then
		return 0
	fi
	rd_cleanup
	modprobe -r rdmirror
}

rd_common_teardown() {
	local log bad=""
	if [[ -n "${RD_WATCHER:-}" ]]; then
		kill "$RD_WATCHER" 2>/dev/null || true
		wait "$RD_WATCHER" 2>/dev/null || true
		RD_WATCHER=
	fi
	rd_cleanup
	if compgen -G "${T:?}/*" >/dev/null; then rm -rf "${T:?}"/*; fi
	# The log since the mark (all of it if the mark was overwritten).
	log=$(dmesg | awk -v mark="$RD_LOG_MARK" '
		index($0, mark) { n = 0; found = 1; next }
		{ lines[n++] = $0 }
		END { for (i = 0; i < n; i++) print lines[i] }')
	# (rd_kernel_bad, two greps, only when bash's own match finds a line
	# it may keep: most logs have none)
	if [[ "$log" =~ $RD_KERNEL_BAD ]]; then bad=$(rd_kernel_bad <<<"$log"); fi
	if [[ -n "$bad" ]]; then
		echo "kernel log during the test:" >&2
		echo "$log" >&2
		return 1
	fi
}

# Stop every md array on an rd disk or a test disk, unmount, remove disks.
rd_cleanup() {
	local m d mnt writes mounts=() lines
	rd_kill_warmups
	# (mapfile, not a read loop: bash's read takes /proc/mounts a byte a
	# system call, 0.2 to 0.3 s a teardown under TCG)
	mapfile -t lines </proc/mounts
	for m in "${lines[@]}"; do
		mnt=${m#* } mnt=${mnt%% *}
		[[ "$mnt" =~ ^/(mnt|tmp)/rdtest ]] && mounts=("$mnt" "${mounts[@]}")
	done
	for m in "${mounts[@]}"; do umount "$m" || true; done
	if compgen -G '/sys/block/md*' >/dev/null; then
		for m in /sys/block/md*; do
			mdadm --stop "/dev/${m##*/}" >/dev/null 2>&1 || true
		done
		# md removes a stopped array's device in the background: wait, or
		# the next test's mdadm --create of the same name can fail.
		udev_settle
		for m in $(seq 50); do
			compgen -G '/sys/block/md*' >/dev/null || break
			sleep 0.1
		done
	fi
	# A disk written during the test may hold an md superblock now.
	rd_hdd_writes writes
	if [[ "$writes" != "${RD_HDD_WRITES:-}" ]]; then
		for d in $RD_TEST_HDDS; do
			mdadm --zero-superblock "/dev/$d" >/dev/null 2>&1 || true
		done
	fi
	if [[ -d /sys/module/rdmirror ]]; then
		for d in /sys/block/rd*; do
			[[ -e "$d" ]] || continue
			rd_remove "${d##*/}" || true
		done
	fi
}

# rd_pids_named NAME: RD_PIDS, the pids of every process named NAME.
# Bash's own reads of /proc/PID/comm: pkill and pgrep read several /proc
# files of every process and took 5 s a teardown on the debug kernel
# under TCG.
rd_pids_named() {
	local f comm
	RD_PIDS=()
	for f in /proc/[0-9]*/comm; do
		{ read -r comm <"$f"; } 2>/dev/null || continue
		[[ "$comm" != "$1" ]] || RD_PIDS+=("${f//[!0-9]/}")
	done
}

# rd_kill_warmups: what a reboot or a power cut does to a warm-up copy's
# daemon (an rdctl in the background, utils/mirror/warmup.h): kill -9
# every rdctl (the tests run rdctl in the foreground), and wait until
# they are gone, so that their RAM disks and arrays are free. One pkill
# on the Debian kernels (0.23 s under TCG, where bash's own scan of /proc
# took 0.8 to 1.4 s); bash's scan on the debug kernel, where the pkill's
# exec costs more than the scan.
rd_kill_warmups() {
	local i st
	for ((i = 0; i < 50; i++)); do
		if rd_debug_kernel; then
			rd_pids_named rdctl
			((${#RD_PIDS[@]})) || return 0
			kill -9 "${RD_PIDS[@]}" 2>/dev/null || true
		else
			st=0
			pkill -9 -x rdctl || st=$?
			((st != 1)) || return 0
			((st == 0)) || { echo "pkill -x rdctl: status $st" >&2; return 1; }
		fi
		sleep 0.1
	done
	echo "an rdctl outlived kill -9" >&2
	return 1
}

# rd_add SIZE_BYTES [prealloc]: create a disk with rdctl, print its name.
rd_add() {
	local out
	out=$(rdctl --attach "${1}B" ${2:+--prealloc}) || return 1
	[[ "$out" =~ ^Attached\ device\ (rd[0-9]+)\ of\ size ]] || {
		echo "unexpected rdctl output: $out" >&2
		return 1
	}
	echo "${BASH_REMATCH[1]}"
}

# rd_remove rdN: rdctl --detach (it waits out udev's probing opens).
rd_remove() {
	rdctl --detach "$1" >/dev/null
}

# rd_ioctl_idle ARGS...: rd-ioctl for a shrink or free that must succeed.
# udev re-probes a disk after every close of a write (its "watch" option)
# and after every resize, holding it open for a moment: such a call can
# meet an EBUSY nobody in the test caused. Settle, then retry EBUSY for up
# to 5 s, as rdctl itself does; any other error fails at once.
rd_ioctl_idle() {
	local out i
	udev_settle
	for i in $(seq 50); do
		out=$(rd-ioctl "$@" 2>&1) && return 0
		[[ "$out" == EBUSY ]] || break
		sleep 0.1
	done
	echo "rd-ioctl $*: $out (after $i tries)" >&2
	return 1
}

# udev_settle: udevadm settle, asked again when udevd dropped the ask.
# udevd closes a control connection after a message it cannot take, and
# systemd 252's udevd turns on SO_PASSCRED only after its accept(): a
# ping sent in between comes without credentials, is dropped, and settle
# fails on EPIPE having waited for nothing ("Failed to wait for daemon to
# reply: Broken pipe"). Only a dropped connection is asked again, at
# most twice; a timeout or any other error fails at once.
udev_settle() {
	local i err
	for i in 1 2 3; do
		err=$(udevadm settle 2>&1) && return 0
		echo "udevadm settle (try $i): $err" >&2
		[[ "$err" == *"reply: Broken pipe"* || "$err" == *"reply: Connection reset by peer"* ]] ||
			return 1
	done
	return 1
}

# udev_workers: true while systemd-udevd has a child (a worker), from
# /proc/PID/task/PID/children (CONFIG_PROC_CHILDREN: Debian's kernels and
# the debug kernel), one read: a pgrep took over a second on the debug
# kernel under TCG, and mem_free_kib asks up to 40 times. udevd's PID is
# looked up once a VM (/run/rdtest-udevd).
udev_workers() {
	local pid="" p kids=()
	{ read -r pid </run/rdtest-udevd; } 2>/dev/null || true
	if [[ -z "$pid" || ! -d /proc/$pid ]]; then
		rd_pids_named systemd-udevd
		pid=""
		# (the oldest: the daemon, not a worker of an older udev)
		for p in "${RD_PIDS[@]}"; do
			[[ -n "$pid" ]] && ((pid < p)) || pid=$p
		done
		[[ -n "$pid" ]] || return 1
		echo "$pid" >/run/rdtest-udevd
	fi
	if [[ ! -r /proc/$pid/task/$pid/children ]]; then
		pgrep -P "$pid" >/dev/null
		return
	fi
	mapfile -t kids <"/proc/$pid/task/$pid/children"
	[[ -n "${kids[*]}" ]]
}

# Free memory in a steady state: udev done with its events and its workers
# gone (each holds a few MiB), caches dropped, empty slabs given back,
# deferred frees run. Counts MemFree plus the free pages parked on the
# per-CPU lists (/proc/zoneinfo "count:"), which MemFree leaves out and
# which 6.12 sizes by load. SLUB keeps empty slabs of every cache for
# reuse, and drop_caches leaves them: the 9p file system the guest's root
# is mounted on has a cache of 512 KiB objects (its msize), which many
# readers at once grow by MiBs at a time. Shrinking every cache gives
# back only empty slabs: what a leak holds stays counted as taken.
mem_free_kib() {
	local i free pcp f
	udev_settle
	for i in $(seq 40); do
		udev_workers || break
		sleep 0.5
	done
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# (each cache once: the names of merged caches are links to it)
	for f in /sys/kernel/slab/*; do
		[[ -L "$f" ]] || echo 1 >"$f/shrink" 2>/dev/null || true
	done
	sleep 1
	free=$(awk '/^MemFree:/ { print $2 }' /proc/meminfo)
	pcp=$(awk '$1 == "count:" { n += $2 } END { print n * 4 }' /proc/zoneinfo)
	# (the rest, for a failure's log: where memory went between readings)
	echo "MemFree $free KiB + per-CPU lists $pcp KiB;" \
		"$(awk '/^(AnonPages|Shmem|SUnreclaim|SReclaimable|KernelStack|PageTables|VmallocUsed):/ {
			printf "%s %s ", $1, $2 }' /proc/meminfo)" >&2
	echo $((free + pcp))
}

rd_allocated() {
	cat "/sys/block/$1/rdmirror/allocated_bytes"
}

# rd_when_emptying DISK SIZE OUT <<'PY' ... PY: run the Python program on
# stdin in the background (its pid in $!, its stdout and stderr in OUT)
# once DISK holds fewer than SIZE allocated bytes: an emptying of a full
# DISK has begun. Returns once the watcher is looking, so that the caller
# can start the emptying. The program sees `size` (SIZE), `tmp` ($T),
# `allocated()` (DISK's allocated bytes, -1 when unreadable) and the
# modules errno, mmap, os, subprocess, sys and time, imported before the
# watch begins: an import once the emptying runs (tens of ms under TCG)
# would let a 512 MiB emptying end before the program acts. If the count
# has not fallen within 60 s, the watcher prints "the emptying never
# began" and exits 0 without running the program: the caller's match on
# OUT fails. Its pid is kept in RD_WATCHER: rd_common_teardown kills a
# watcher a failed test left waiting (for a file its caller never wrote),
# which would otherwise hold the disk open through the suite's next tests
# and keep the VM from ending.
rd_when_emptying() {
	local disk=$1 size=$2 out=$3 body i
	body=$(cat)
	rm -f "$T/ready"
	python3 -c "import errno, mmap, os, subprocess, sys, time
size, tmp = int(sys.argv[1]), sys.argv[2]
def allocated():
    try:
        with open('/sys/block/$disk/rdmirror/allocated_bytes') as f:
            return int(f.read())
    except OSError:
        return -1
open(tmp + '/ready', 'w').close()
deadline = time.monotonic() + 60
while allocated() >= size:
    if time.monotonic() > deadline:
        print('the emptying never began')
        sys.exit(0)
$body" "$size" "$T" >"$out" 2>&1 </dev/null &
	RD_WATCHER=$!
	for ((i = 0; i < 200; i++)); do
		[[ -e "$T/ready" ]] && return 0
		sleep 0.05
	done
	return 0
}

# Read I/Os completed by a block device (first field of its stat file).
disk_reads() {
	awk '{ print $1 }' "/sys/block/$1/stat"
}

# The first persistent-member stand-in (vda, ...).
hdd() {
	local a
	read -ra a <<<"$RD_TEST_HDDS"
	echo "${a[$(($1 - 1))]}"
}

# shellcheck disable=SC2034 # used by the .bats files that load this
MiB=$((1 << 20))

# rd_mirror_setup: what a suite that makes RAM mirrors with rdctl sets up
# after rd_common_setup: its configuration $CONF (empty), the stand-ins
# $H1 and $H2, and rdctl's mdadm.conf, initramfs hook, update-initramfs
# (it logs its arguments to $T/initramfs.log: the guest's root is the
# host's) and run directory, all the test's own.
rd_mirror_setup() {
	CONF=$T/rdmirror.conf
	: >"$CONF"
	H1=$(hdd 1)
	H2=$(hdd 2)
	export RDCTL_MDADM_CONF=$T/mdadm.conf RDCTL_INITRAMFS_HOOK=$T/hook
	export RDCTL_UPDATE_INITRAMFS=$T/update-initramfs RDCTL_RUN_DIR=$T/run
	mkdir -p "$RDCTL_RUN_DIR"
	: >"$RDCTL_MDADM_CONF"
	: >"$RDCTL_INITRAMFS_HOOK"
	printf '#!/bin/sh\necho "$@" >>"%s"\n' "$T/initramfs.log" >"$RDCTL_UPDATE_INITRAMFS"
	chmod +x "$RDCTL_UPDATE_INITRAMFS"
}
# rd_create_mirror: md0, a RAM mirror of $H1 and $H2 made by rdctl --create
# and in sync (--wait), in $CONF.
# shellcheck disable=SC2154 # output and status are bats' run's
rd_create_mirror() {
	run rdctl --create /dev/md0 "/dev/$H1" "/dev/$H2" --config "$CONF" --wait
	echo "$output"
	[ "$status" -eq 0 ]
}
# ram_member: the rd member of md0 (rdN; the first, if a failed one is
# still there); status 1 when it has none.
ram_member() {
	local d
	for d in /sys/block/md0/md/dev-rd*; do
		[[ -e "$d" ]] || continue
		echo "${d##*/dev-}"
		return 0
	done
	return 1
}
# rd_mirror_teardown: rd_common_teardown, then the stand-ins wiped (the
# next --create would rightly refuse disks that hold an md superblock or a
# file system); rd_common_teardown's status.
rd_mirror_teardown() {
	local rc=0
	rd_common_teardown || rc=$?
	wipefs -qa "/dev/$H1" "/dev/$H2" >/dev/null 2>&1 || true
	return "$rc"
}

# md_stop_zero MD DEV...: stop MD and wipe the md superblocks of DEVs.
# The moment md lets a member go, udev may see it change and assemble it
# again (mdadm -I), which holds it open and makes the wipe fail ("Couldn't
# open /dev/vda for write"): so settle, stop what holds the members, and
# try again, for up to 10 s; the last try says why it failed.
md_stop_zero() {
	local md=$1 d h
	shift
	mdadm --stop "$md"
	for _ in $(seq 50); do
		udev_settle
		for d in "$@"; do
			for h in "/sys/block/${d#/dev/}/holders/"*; do
				[[ ! -e "$h" ]] || mdadm --stop "/dev/${h##*/}" >/dev/null 2>&1 || true
			done
		done
		mdadm --zero-superblock "$@" 2>/dev/null && return 0
		sleep 0.2
	done
	mdadm --zero-superblock "$@"
}

# md_attr ATTR: /sys/block/md0/md/ATTR
md_attr() { cat "/sys/block/md0/md/$1"; }

# wait_idle: md0's sync (recovery, check, repair) has ended, within 2 minutes
wait_idle() {
	for _ in $(seq 600); do
		[ "$(md_attr sync_action)" = idle ] && return 0
		sleep 0.2
	done
	echo "md0 still busy: $(md_attr sync_action)" >&2
	return 1
}
