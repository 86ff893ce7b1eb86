#!/usr/bin/env bats
# The guest half of the crash-consistency test (test/crash/run): ext4 on a
# RAM mirror made by rdctl --create, whose persistent member is a
# dm-log-writes target over the first stand-in disk, logging every write,
# flush and FUA to the second. A workload of fsynced file operations puts
# a mark in the log after each fsync returned. The host replays the log
# (test/helpers/log-replay) to every flush, FUA and mark and checks the
# file system and the files there.
#
# Parameters come from build/crash.env, written by test/crash/run:
# CRASH_OPS, CRASH_SEED, CRASH_PLANT (a planted defect: mark-before-fsync,
# write-behind). The first mark of the log carries them and the md
# member's data offset to the host.

# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/../bats/helpers.bash"

LW=rdcrash-lw
MNT=/tmp/rdtest-crash

setup() {
	rd_common_setup
	CRASH_OPS=120 CRASH_SEED=1 CRASH_PLANT=""
	if [[ -f "$RD_TOP/build/crash.env" ]]; then
		# shellcheck source=/dev/null
		. "$RD_TOP/build/crash.env"
	fi
}

teardown() {
	umount "$MNT" 2>/dev/null || true
	mdadm --stop /dev/md0 >/dev/null 2>&1 || true
	dmsetup remove "$LW" 2>/dev/null || true
	rd_common_teardown
}

lw_mark() {
	dmsetup message "$LW" 0 mark "$1"
}

@test "crash consistency: ext4 on the RAM mirror over dm-log-writes, a mark after every fsync" {
	local h1 h2 sectors off fs_bytes status start early=()
	# room for the files as CRASH_OPS grows (120: 33 MiB; 2000: 63 MiB)
	fs_bytes=$(((32 + CRASH_OPS / 64) * MiB))
	h1=$(hdd 1)
	h2=$(hdd 2)
	modprobe dm-log-writes
	sectors=$(blockdev --getsz "/dev/$h1")
	# the log on the whole second stand-in: blank, so it starts empty
	dmsetup create "$LW" --table "0 $sectors log-writes /dev/$h1 /dev/$h2"
	udev_settle
	rdctl --create /dev/md0 "/dev/mapper/$LW" --config "$T/rdmirror.conf" --wait
	mdadm --detail /dev/md0 | grep -E 'writemostly|write-mostly|Bitmap|State :'
	if [[ "$CRASH_PLANT" == write-behind ]]; then
		# planted: md may ack a write once the RAM member has it
		echo 16383 >/sys/block/md0/md/bitmap/backlog
	fi
	off=$(mdadm --examine "/dev/mapper/$LW" | awk '$1 == "Data" && $2 == "Offset" { print $4 }')
	[[ "$off" =~ ^[0-9]+$ ]]
	echo "member data offset: $off sectors"
	# (a mark is one word: dm-log-writes takes "mark TEXT" and no more)
	lw_mark "rdcrash,offset=$((off * 512)),fssize=$fs_bytes,seed=$CRASH_SEED,ops=$CRASH_OPS,plant=${CRASH_PLANT:-none}"
	# nodiscard: the stand-in ignores discards, so the log's replay (which
	# zeroes them) would differ from the disk; the tables written now,
	# not by ext4lazyinit during the workload
	mkfs.ext4 -F -q -b 4096 -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 /dev/md0 "$((fs_bytes / 4096))"
	lw_mark mkfs-done
	mkdir -p "$MNT"
	mount -t ext4 /dev/md0 "$MNT"
	if [[ "$CRASH_PLANT" == mark-before-fsync ]]; then early=(--mark-before-fsync); fi
	start=$(date +%s)
	crash-workload run "$MNT/data" "$CRASH_SEED" "$CRASH_OPS" "${early[@]}" -- dmsetup message "$LW" 0 mark
	# (on fd 3: bats shows it in the TAP output, passed or not)
	echo "# workload: $CRASH_OPS fsynced operations in $(($(date +%s) - start)) s" >&3
	lw_mark workload-done
	umount "$MNT"
	lw_mark umounted
	mdadm --stop /dev/md0
	status=$(dmsetup status "$LW")
	echo "# dm-log-writes: $status (entries logged, highest log sector)" >&3
	# removing the target writes the log's super with the final count
	dmsetup remove "$LW"
	if dmesg | grep 'Ran out of space on the logdev'; then
		echo "the log device is too small for CRASH_OPS=$CRASH_OPS" >&2
		false
	fi
}
