#!/usr/bin/env bats
# The product's reason to exist: md RAID1 of rd0 and a write-mostly disk,
# reads served by rd0 alone.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"

setup() { rd_common_setup; }
teardown() { rd_common_teardown; }

@test "RAID1 rd0 + write-mostly disk: syncs, keeps files, random reads come from rd0 only" {
	hdd=$(hdd 1)
	# two full resyncs of the array: 32 MiB on the debug kernel, where
	# KASAN makes every page md copies several times dearer
	size_mib=256
	! rd_debug_kernel || size_mib=32
	rd_add $((size_mib * MiB))
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		/dev/rd0 --write-mostly "/dev/$hdd"
	mdadm --wait /dev/md0 || true
	[ "$(cat /sys/block/md0/md/array_state)" = clean ] || [ "$(cat /sys/block/md0/md/array_state)" = active ]
	[ "$(cat /sys/block/md0/md/degraded)" = 0 ]
	[ "$(cat /sys/block/md0/md/sync_action)" = idle ]
	grep -q write_mostly "/sys/block/md0/md/dev-$hdd/state"
	run grep -q write_mostly /sys/block/md0/md/dev-rd0/state
	[ "$status" = 1 ]

	mkfs.ext4 -q /dev/md0
	mkdir -p /tmp/rdtest-md
	mount /dev/md0 /tmp/rdtest-md
	for i in 1 2 3 4; do head -c $((size_mib * MiB / 16)) /dev/urandom >"/tmp/rdtest-md/f$i"; done
	(cd /tmp/rdtest-md && sha256sum f*) >"$T/sums"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	(cd /tmp/rdtest-md && sha256sum -c --quiet "$T/sums")
	umount /tmp/rdtest-md

	# Every write lands on the persistent member too.
	mdadm --stop /dev/md0
	mdadm --assemble /dev/md0 --run "/dev/$hdd"
	mount -o ro /dev/md0 /tmp/rdtest-md
	(cd /tmp/rdtest-md && sha256sum -c --quiet "$T/sums")
	umount /tmp/rdtest-md
	mdadm /dev/md0 --add /dev/rd0
	mdadm --wait /dev/md0 || true
	[ "$(cat /sys/block/md0/md/degraded)" = 0 ]

	echo 3 >/proc/sys/vm/drop_caches
	# rd disks keep no statistics by default: md0 counts the reads, and
	# with the disk's count unchanged rd0, the other member, served them
	hdd_before=$(disk_reads "$hdd")
	md_before=$(disk_reads md0)
	fio --name=randread --filename=/dev/md0 --rw=randread --bs=4k \
		--direct=1 --ioengine=psync --number_ios=2000 --size=$((size_mib - 8))M \
		--output-format=terse >/dev/null
	hdd_after=$(disk_reads "$hdd")
	md_after=$(disk_reads md0)
	echo "reads: md0 +$((md_after - md_before)), $hdd +$((hdd_after - hdd_before))"
	[ "$hdd_after" = "$hdd_before" ]
	[ $((md_after - md_before)) -ge 2000 ]
}

# md_nowait MD: what a RWF_NOWAIT write and read to MD give, in NOWAIT
# ("" when both went through, else the errno's name; not a $(...): the
# checks in here must fail the test). nowait-io --activate makes the
# array active first (a NOWAIT write to a clean array is EAGAIN) and
# checks it is; safe_mode_delay keeps it so on the slow debug kernel,
# where it went back to clean before the NOWAIT write. udev settles
# first: a page its probe holds in MD's page cache makes any NOWAIT
# direct write EAGAIN, whatever md does (seen on 6.1 under load).
md_nowait() {
	echo 60 >"/sys/block/$1/md/safe_mode_delay"
	udev_settle
	local st=0
	NOWAIT=$(nowait-io --activate "/dev/$1") || st=$?
	[ "$st" -ne 2 ] || { echo "$NOWAIT" >&2; return 1; }
	[ "$st" -eq 0 ] || [ -n "$NOWAIT" ]
}

@test "NOWAIT: rd0 takes RWF_NOWAIT I/O, and md over rd0 + a disk as over two disks" {
	# 16 MiB on the debug kernel: the resync and fio's verify cost 4 times
	# less there, and the paths taken are the same
	size_mib=64
	! rd_debug_kernel || size_mib=16
	rd_add $((size_mib * MiB))
	nowait-io /dev/rd0
	# What this kernel's RAID1 does with NOWAIT without rd: up to 6.x
	# it takes it when every member does; 7.x's RAID1 does not take it
	# at all (EOPNOTSUPP; md_init_stacking_limits() no longer sets
	# BLK_FEAT_NOWAIT, raid0 and linear set it themselves).
	mdadm --create /dev/md1 --run --level=1 --raid-devices=2 --metadata=1.2 \
		--assume-clean --size=$((size_mib * 1024 - 1024)) "/dev/$(hdd 1)" "/dev/$(hdd 2)"
	md_nowait md1
	ref=$NOWAIT
	md_stop_zero /dev/md1 "/dev/$(hdd 1)" "/dev/$(hdd 2)"
	echo "NOWAIT on a RAID1 of two disks: ${ref:-taken}"
	if [[ "$(uname -r)" == 6.* ]]; then
		[ -z "$ref" ]
	fi
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		/dev/rd0 --write-mostly "/dev/$(hdd 2)"
	mdadm --wait /dev/md0 || true
	md_nowait md0
	got=$NOWAIT
	echo "NOWAIT on md(rd0 + a disk): ${got:-taken}"
	[ "$got" = "$ref" ]
	fio --name=nowait --filename=/dev/md0 --rw=randrw --bs=4k --ioengine=io_uring \
		--iodepth=16 --direct=1 --size=$((size_mib / 2))M --verify=crc32c --verify_fatal=1 \
		--output-format=terse >/dev/null
}
