# shellcheck shell=bash
# Shared by every bats file of the VM suite. Each test starts with no rd
# disk and no md array, and fails if the kernel logged a bug while it ran.

# Kernel log lines that mean the test hit a kernel bug.
# What a kernel says when it finds a bug: oopses and warnings, KASAN, and
# lockdep's reports (the debug-kernel pass has KASAN and lockdep on).
RD_KERNEL_BAD='BUG|WARNING|Oops|Call Trace|KASAN|kmemleak|possible recursive locking|circular locking|inconsistent lock state|suspicious RCU usage|lock inversion|bad unlock balance|held lock freed|lock held when returning|INFO: task .* blocked'

rd_common_setup() {
	RD_DMESG_START=$(dmesg | wc -l)
	T=$(mktemp -d)
	modprobe rdmirror
}

rd_common_teardown() {
	local bad
	rd_cleanup
	rm -rf "$T"
	bad=$(dmesg | tail -n +"$((RD_DMESG_START + 1))" | grep -E "$RD_KERNEL_BAD" || true)
	if [[ -n "$bad" ]]; then
		echo "kernel log during the test:" >&2
		dmesg | tail -n +"$((RD_DMESG_START + 1))" >&2
		return 1
	fi
}

# Stop every md array on an rd disk or a test disk, unmount, remove disks.
rd_cleanup() {
	local m d
	awk '$2 ~ /^\/(mnt|tmp)\/rdtest/ { print $2 }' /proc/mounts | sort -r |
		while read -r m; do umount "$m" || true; done
	for m in /sys/block/md*; do
		[[ -e "$m" ]] || continue
		mdadm --stop "/dev/${m##*/}" >/dev/null 2>&1 || true
	done
	# md removes a stopped array's device in the background: wait, or the
	# next test's mdadm --create of the same name can fail.
	udevadm settle
	for m in $(seq 50); do
		compgen -G '/sys/block/md*' >/dev/null || break
		sleep 0.1
	done
	for d in $RD_TEST_HDDS; do
		mdadm --zero-superblock "/dev/$d" >/dev/null 2>&1 || true
	done
	if [[ -d /sys/module/rdmirror ]]; then
		for d in /sys/block/rd*; do
			[[ -e "$d" ]] || continue
			rd_remove "${d##*/}" || true
		done
	fi
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

rd_allocated() {
	cat "/sys/block/$1/rdmirror/allocated_bytes"
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
