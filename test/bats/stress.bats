#!/usr/bin/env bats
# Concurrency: attach/detach from several processes while fio runs on
# other disks. No crash, no leak.

load helpers

setup() { rd_common_setup; }
teardown() { rd_common_teardown; }

# Free memory in a steady state: udev done with its events and its workers
# gone (each holds a few MiB), caches dropped, deferred frees run. Counts
# MemFree plus the free pages parked on the per-CPU lists (/proc/zoneinfo
# "count:"), which MemFree leaves out and which 6.12 sizes by load.
mem_free_kib() {
	local udevd i free pcp
	udevadm settle
	udevd=$(pgrep -o systemd-udevd || true)
	for i in $(seq 40); do
		[[ -z "$udevd" || -z "$(pgrep -P "$udevd")" ]] && break
		sleep 0.5
	done
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	free=$(awk '/^MemFree:/ { print $2 }' /proc/meminfo)
	pcp=$(awk '$1 == "count:" { n += $2 } END { print n * 4 }' /proc/zoneinfo)
	echo "MemFree $free KiB + per-CPU lists $pcp KiB" >&2
	echo $((free + pcp))
}

churn() {
	local i name
	for i in $(seq "$2"); do
		name=$(rd_add $((16 * MiB))) || return 1
		dd if=/dev/urandom of="/dev/$name" bs=1M count=4 oflag=direct status=none || return 1
		rd_remove "$name" >/dev/null || return 1
	done
}

@test "concurrent attach/detach while fio runs elsewhere: no crash, memory returns" {
	# Warm up what stays allocated once used (slab caches, udev's rules),
	# so that the two readings differ only by what rd disks leaked.
	churn w 3
	free_before=$(mem_free_kib)
	rd_add $((64 * MiB))
	rd_add $((64 * MiB))
	fio --name=bg --rw=randrw --bs=4k --ioengine=libaio --iodepth=4 --direct=1 \
		--filename=/dev/rd0:/dev/rd1 --size=128M --time_based --runtime=20 \
		--verify=crc32c --verify_fatal=1 --verify_state_save=0 \
		--output-format=terse >"$T/fio.out" &
	fio_pid=$!
	churn a 12 & p1=$!
	churn b 12 & p2=$!
	churn c 12 & p3=$!
	wait "$p1"
	wait "$p2"
	wait "$p3"
	wait "$fio_pid"
	[ -e /sys/block/rd0 ] && [ -e /sys/block/rd1 ]
	rd_cleanup
	[ -z "$(find /sys/block -name 'rd*')" ]
	sleep 1
	free_after=$(mem_free_kib)
	echo "MemFree before $free_before KiB, after $free_after KiB"
	# Within 16 MiB: the test wrote more than 500 MiB through rd disks.
	[ $((free_before - free_after)) -lt 16384 ]
}
