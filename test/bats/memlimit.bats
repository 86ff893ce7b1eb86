#!/usr/bin/env bats
# The module's limits: md0's largest I/O (rd's max_hw_sectors, which md
# stacks), and the bound on the memory every rd disk takes together
# (parameter mem_limit): lazily allocated disks written past it have
# their writes refused with an error, the machine is not driven to the
# OOM killer, md fails the RAM member alone and goes on from its disks,
# and rdctl --status says why and what to run.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"

P=/sys/module/rdmirror/parameters

setup() {
	rd_common_setup
	rd_mirror_setup
	LIMIT0=$(cat "$P/mem_limit")
}
teardown() {
	local rc=0
	rd_mirror_teardown || rc=$?
	echo "$LIMIT0" >"$P/mem_limit"
	return "$rc"
}

# no_oom: the kernel log since the test's mark has no OOM kill in it
no_oom() {
	local log
	log=$(dmesg | awk -v mark="$RD_LOG_MARK" 'index($0, mark) { found = 1; next } found')
	if [[ "$log" =~ "invoked oom-killer"|"Out of memory" ]]; then
		echo "$log" >&2
		return 1
	fi
}

member_state() { cat "/sys/block/md0/md/dev-$1/state"; }

@test "md0's largest I/O is at least 1 MiB (rd sets no 127 KiB bound)" {
	rd_create_mirror
	rd=$(ram_member)
	echo "md0 $(cat /sys/block/md0/queue/max_hw_sectors_kb) KiB, $rd $(cat "/sys/block/$rd/queue/max_hw_sectors_kb") KiB"
	[ "$(cat "/sys/block/$rd/queue/max_hw_sectors_kb")" -ge 1024 ]
	[ "$(cat /sys/block/md0/queue/max_hw_sectors_kb)" -ge 1024 ]
}

@test "mem_limit's default leaves rdctl's reserve; root may change it" {
	total=$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)
	reserve=$((total / 20))
	((reserve >= 256 * MiB)) || reserve=$((256 * MiB))
	((reserve <= total / 2)) || reserve=$((total / 2))
	echo "MemTotal $total, mem_limit $LIMIT0"
	# (the kernel's RAM, totalram, is a little less than MemTotal)
	((LIMIT0 <= total - reserve))
	((LIMIT0 > total - reserve - 64 * MiB))
	echo 64M >"$P/mem_limit"
	[ "$(cat "$P/mem_limit")" = $((64 * MiB)) ]
	run bash -c "echo 1 >$P/mem_used"
	[ "$status" -ne 0 ]
}

@test "lazily allocated disks of 3/4 RAM each, written in full: writes past the default limit refused, no OOM kill" {
	total=$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)
	size=$((total * 3 / 4 / MiB * MiB))
	d1=$(rd_add "$size")
	d2=$(rd_add "$size")
	refused0=$(cat "$P/mem_refused_writes")
	dd if=/dev/zero of="/dev/$d1" bs=1M count=$((size / MiB)) oflag=direct status=none
	# (count: dd past a disk's end fails with ENOSPC too)
	run dd if=/dev/zero of="/dev/$d2" bs=1M count=$((size / MiB)) oflag=direct
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"error writing '/dev/$d2': No space left on device"* ]]
	[[ "$output" =~ ([0-9]+)\+0\ records\ out ]]
	((BASH_REMATCH[1] < size / MiB))
	no_oom
	used=$(cat "$P/mem_used")
	echo "used $used, limit $LIMIT0, $d1 $(rd_allocated "$d1"), $d2 $(rd_allocated "$d2")"
	((used <= LIMIT0))
	[ "$used" = $(($(rd_allocated "$d1") + $(rd_allocated "$d2"))) ]
	(($(cat "/sys/block/$d2/rdmirror/refused_writes") > 0))
	[ "$(cat "/sys/block/$d1/rdmirror/refused_writes")" = 0 ]
	(($(cat "$P/mem_refused_writes") > refused0))
	# rdctl says why and what to run
	run rdctl --status
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"$d2 had "*" write"*" refused: rdmirror's memory limit is reached (mem_limit "* ]]
	run rdctl --status --nagios
	echo "$output"
	[ "$status" -eq 2 ]
	# memory given back (a disk detached) ends the refusals
	rd_remove "$d1"
	dd if=/dev/zero of="/dev/$d2" bs=1M count=16 oflag=direct status=none
	# a preallocation past the limit is refused at creation
	echo $((32 * MiB)) >"$P/mem_limit"
	run rdctl --attach 64M --prealloc
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Disk quota exceeded (EDQUOT)"* ]]
	disks=(/sys/block/rd*)
	[ "${#disks[@]}" = 1 ]
}

@test "md0's RAM member written past the limit: md fails it alone, the disks serve md0, nothing is lost" {
	rd_create_mirror
	rd=$(ram_member)
	# a discard frees the RAM member's pages: the array's next writes
	# there need new ones
	blkdiscard -o 0 -l $((128 * MiB)) /dev/md0
	echo "$rd holds $(rd_allocated "$rd") bytes after the discard"
	(($(rd_allocated "$rd") < 160 * MiB))
	used=$(cat "$P/mem_used")
	echo $((used + 16 * MiB)) >"$P/mem_limit"
	head -c $((64 * MiB)) /dev/urandom >"$T/data"
	dd if="$T/data" of=/dev/md0 bs=1M oflag=direct status=none
	for _ in $(seq 100); do
		[[ "$(member_state "$rd")" == *faulty* ]] && break
		sleep 0.2
	done
	echo "$rd: $(member_state "$rd"), $H1: $(member_state "$H1"), $H2: $(member_state "$H2")"
	# the RAM member alone failed, its writes refused with an error
	[[ "$(member_state "$rd")" == *faulty* ]]
	[[ "$(member_state "$rd")" != *in_sync* ]]
	[[ "$(member_state "$H1")" == *in_sync* ]]
	[[ "$(member_state "$H2")" == *in_sync* ]]
	[ "$(md_attr degraded)" = 1 ]
	(($(cat "/sys/block/$rd/rdmirror/refused_writes") > 0))
	(($(cat "$P/mem_used") <= $(cat "$P/mem_limit")))
	no_oom
	# md0 serves reads from its disks, and takes writes
	r1=$(disk_reads "$H1")
	r2=$(disk_reads "$H2")
	dd if=/dev/md0 bs=1M count=64 iflag=direct status=none | cmp - "$T/data"
	(($(disk_reads "$H1") + $(disk_reads "$H2") > r1 + r2))
	dd if="$T/data" of=/dev/md0 bs=1M seek=64 oflag=direct status=none
	dd if=/dev/md0 bs=1M skip=64 count=64 iflag=direct status=none | cmp - "$T/data"
	# rdctl says why and what to run
	run rdctl --status
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"md0: RAM member $rd had "*" writes refused"*"mem_limit"*"rdctl --restore"* ]]
	run rdctl --status --nagios
	echo "$output"
	[ "$status" -eq 2 ]
	# what it says to run, once there is room: the mirror is whole again
	echo "$LIMIT0" >"$P/mem_limit"
	run rdctl --restore --config "$CONF" --wait
	echo "$output"
	[ "$status" -eq 0 ]
	rd=$(ram_member)
	[[ "$(member_state "$rd")" == *in_sync* ]]
	[ "$(md_attr degraded)" = 0 ]
	dd if=/dev/md0 bs=1M count=64 iflag=direct status=none | cmp - "$T/data"
	dd if=/dev/md0 bs=1M skip=64 count=64 iflag=direct status=none | cmp - "$T/data"
	echo check >/sys/block/md0/md/sync_action
	wait_idle
	[ "$(md_attr mismatch_cnt)" = 0 ]
	no_oom
}
