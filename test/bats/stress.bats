#!/usr/bin/env bats
# Concurrency: attach/detach from several processes while fio runs on
# other disks. No crash, no leak.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"

setup() { rd_common_setup; }
teardown() { rd_common_teardown; }

# churn NAME ROUNDS: attach a disk, write 4 MiB of random data, read every
# byte back, detach; adds the bytes verified to $T/verified-NAME.
churn() {
	local i name n=0
	head -c $((4 * MiB)) /dev/urandom >"$T/churn-$1"
	for i in $(seq "$2"); do
		name=$(rd_add $((16 * MiB))) || return 1
		dd if="$T/churn-$1" of="/dev/$name" bs=1M oflag=direct status=none || return 1
		cmp -n $((4 * MiB)) "/dev/$name" "$T/churn-$1" || return 1
		n=$((n + 4 * MiB))
		rd_remove "$name" >/dev/null || return 1
	done
	echo "$n" >"$T/verified-$1"
}

# verify_rounds ROUNDS: on rd0 and rd1 at once, fio writes every 4 KiB
# block of $fio_mib MiB once in random order, then reads all of them back and
# checks every byte. Not --time_based: that skips fio's final verify pass.
# Each round writes a pattern of its own (a random word, then the block's
# offset, repeated), so a block that kept the last round's data fails:
# with --verify=crc32c it would not (the old block's header and checksum
# are still valid; a planted dropped overwrite in rd's store passed four
# such rounds). The offset catches a block written to the wrong place.
verify_rounds() {
	local r n=0
	for r in $(seq "$1"); do
		fio --name=v --rw=randwrite --bs=4k --ioengine=libaio --iodepth=4 --direct=1 \
			--filename=/dev/rd0:/dev/rd1 --size="${fio_mib}M" --randseed="$r" \
			--verify=pattern --verify_pattern="0x$(printf '%04x%04x' "$RANDOM" "$RANDOM")%o" \
			--do_verify=1 --verify_fatal=1 --verify_state_save=0 \
			--output-format=json >"$T/fio-$r.json" || return 1
		n=$((n + $(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["read"]["io_bytes"])' "$T/fio-$r.json")))
	done
	echo "$n" >"$T/verified-fio"
}

@test "concurrent attach/detach while fio runs elsewhere: every byte read back, no crash, memory returns" {
	# Warm up what stays allocated once used (slab caches, udev's rules),
	# so that the two readings differ only by what rd disks leaked.
	churn w 3
	free_before=$(mem_free_kib)
	rd_add $((64 * MiB))
	rd_add $((64 * MiB))
	# Four fio rounds of 128 MiB and 12 churn rounds a process; on the
	# debug kernel (its release ends in "rdtest"), where KASAN makes each
	# verify pass of 128 MiB cost ~80 s and every process up to a second,
	# one fio round of 32 MiB and 4 churn rounds: still 12 attach/detach
	# cycles beside the fio round.
	rounds=4 churns=12 fio_mib=128
	if rd_debug_kernel; then rounds=1 churns=4 fio_mib=32; fi
	verify_rounds "$rounds" & fio_pid=$!
	churn a "$churns" & p1=$!
	churn b "$churns" & p2=$!
	churn c "$churns" & p3=$!
	wait "$p1"
	wait "$p2"
	wait "$p3"
	wait "$fio_pid"
	[ -e /sys/block/rd0 ]
	[ -e /sys/block/rd1 ]
	# every byte written was read back and compared: fio's verify pass
	# read all it wrote ($fio_mib MiB a round), the churn all of its 4 MiB each
	fio_bytes=$(cat "$T/verified-fio")
	churn_bytes=$(($(cat "$T/verified-a") + $(cat "$T/verified-b") + $(cat "$T/verified-c")))
	echo "verified: fio $fio_bytes bytes, churn $churn_bytes bytes"
	[ "$fio_bytes" = $((rounds * fio_mib * MiB)) ]
	[ "$churn_bytes" = $((3 * churns * 4 * MiB)) ]
	rd_cleanup
	[ -z "$(find /sys/block -name 'rd*')" ]
	sleep 1
	free_after=$(mem_free_kib)
	echo "MemFree before $free_before KiB, after $free_after KiB"
	# Within 16 MiB: the test wrote more than 600 MiB through rd disks
	# (about 100 MiB on the debug kernel).
	[ $((free_before - free_after)) -lt 16384 ]
}
