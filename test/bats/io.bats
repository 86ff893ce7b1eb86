#!/usr/bin/env bats
# The data path: integrity, holes, discard and write-zeroes accounting.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"

setup() { rd_common_setup; }
teardown() { rd_common_teardown; }

@test "random data round-trips: several sizes, unaligned offsets, O_DIRECT" {
	rd_add $((64 * MiB))
	for bs in 512 4096 65536 1048576; do
		for off in 0 512 3584 4096 1049088; do
			head -c $((bs * 3)) /dev/urandom >"$T/in"
			dd if="$T/in" of=/dev/rd0 bs="$bs" seek="$off" \
				oflag=direct,seek_bytes conv=notrunc status=none
			dd if=/dev/rd0 bs="$bs" skip="$off" count=3 \
				iflag=direct,skip_bytes status=none >"$T/out"
			cmp "$T/in" "$T/out" || { echo "bs=$bs off=$off"; false; }
		done
	done
}

@test "random data round-trips through the page cache (buffered)" {
	rd_add $((64 * MiB))
	head -c $((40 * MiB + 1536)) /dev/urandom >"$T/in"
	dd if="$T/in" of=/dev/rd0 bs=7k seek=3 oflag=seek_bytes status=none
	sync
	blockdev --flushbufs /dev/rd0
	dd if=/dev/rd0 bs=1M skip=3 iflag=skip_bytes,count_bytes \
		count=$((40 * MiB + 1536)) status=none >"$T/out"
	cmp "$T/in" "$T/out"
	# The first three bytes and everything after were never written.
	[ "$(head -c 3 /dev/rd0 | od -An -tx1 | tr -d ' ')" = 000000 ]
}

@test "fio random read/write with crc32c verification" {
	# 16 MiB of random I/O on the debug kernel, where KASAN checks every
	# byte copied: the same paths at a third of the cost
	local mib=48
	! rd_debug_kernel || mib=16
	rd_add $((64 * MiB))
	fio --name=verify --filename=/dev/rd0 --size="${mib}M" --rw=randrw \
		--bssplit=512/10:4k/50:64k/30:1m/10 --ioengine=libaio --iodepth=8 \
		--direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--output-format=terse >"$T/fio.out"
	fio --name=verify2 --filename=/dev/rd0 --size=48M --rw=randwrite --bs=4k \
		--ioengine=psync --numjobs=2 --offset_increment=24M --size=24M \
		--direct=0 --verify=crc32c --verify_fatal=1 --output-format=terse >>"$T/fio.out"
}

@test "never-written sectors read as zeros and take no memory" {
	rd_add $((32 * MiB))
	cmp -n $((32 * MiB)) /dev/rd0 /dev/zero
	dd if=/dev/rd0 of=/dev/null bs=1M iflag=direct status=none
	[ "$(rd_allocated rd0)" = 0 ]
	# One 512-byte write allocates exactly one page.
	head -c 512 /dev/urandom | dd of=/dev/rd0 bs=512 seek=9 oflag=direct status=none
	[ "$(rd_allocated rd0)" = 4096 ]
	cmp -n 4608 /dev/rd0 /dev/zero
	cmp -n 3072 -i 5120:0 /dev/rd0 /dev/zero
}

@test "discard frees whole pages, zeroes partial ones; allocated bytes exact" {
	rd_add $((32 * MiB))
	head -c $((16 * MiB)) /dev/urandom >"$T/data"
	dd if="$T/data" of=/dev/rd0 bs=1M oflag=direct status=none
	[ "$(rd_allocated rd0)" = $((16 * MiB)) ]
	blkdiscard -o 0 -l $((8 * MiB)) /dev/rd0
	[ "$(rd_allocated rd0)" = $((8 * MiB)) ]
	cmp -n $((8 * MiB)) /dev/rd0 /dev/zero
	cmp -n $((8 * MiB)) -i $((8 * MiB)):$((8 * MiB)) /dev/rd0 "$T/data"
	# 512 bytes inside a page: zeroed, the page stays.
	blkdiscard -o $((8 * MiB + 512)) -l 512 /dev/rd0
	[ "$(rd_allocated rd0)" = $((8 * MiB)) ]
	cmp -n 512 -i $((8 * MiB + 512)):0 /dev/rd0 /dev/zero
	cmp -n 512 -i $((8 * MiB)):$((8 * MiB)) /dev/rd0 "$T/data"
	cmp -n 3072 -i $((8 * MiB + 1024)):$((8 * MiB + 1024)) /dev/rd0 "$T/data"
	# A range with ragged ends: whole pages inside freed, the ends zeroed.
	blkdiscard -o $((8 * MiB + 3584)) -l $((12288 + 1024)) /dev/rd0
	[ "$(rd_allocated rd0)" = $((8 * MiB - 12288)) ]
	cmp -n $((12288 + 1024)) -i $((8 * MiB + 3584)):0 /dev/rd0 /dev/zero
	cmp -n 3072 -i $((8 * MiB + 4096 * 4 + 512)):$((8 * MiB + 4096 * 4 + 512)) /dev/rd0 "$T/data"
}

@test "write-zeroes: punch-hole frees pages, zeroout (NOUNMAP) keeps them zeroed" {
	rd_add $((32 * MiB))
	head -c $((16 * MiB)) /dev/urandom | dd of=/dev/rd0 bs=1M oflag=direct status=none
	fallocate --punch-hole --keep-size -o 0 -l $((4 * MiB)) /dev/rd0
	[ "$(rd_allocated rd0)" = $((12 * MiB)) ]
	cmp -n $((4 * MiB)) /dev/rd0 /dev/zero
	blkdiscard -z -o $((4 * MiB)) -l $((4 * MiB)) /dev/rd0
	[ "$(rd_allocated rd0)" = $((12 * MiB)) ]
	cmp -n $((8 * MiB)) /dev/rd0 /dev/zero
}

@test "allocated bytes stay exact under concurrent writers and discards" {
	rd_add $((64 * MiB))
	fio --name=mix --filename=/dev/rd0 --size=64M --rw=randrw --bs=4k \
		--ioengine=psync --numjobs=4 --direct=1 --time_based --runtime=8 \
		--output-format=terse >/dev/null &
	fio_pid=$!
	for _ in $(seq 20); do
		blkdiscard -o $((RANDOM % 16 * 4 * MiB)) -l $((4 * MiB)) /dev/rd0
		sleep 0.2
	done
	wait "$fio_pid"
	# Count the pages that hold data by reading: each non-zero page was
	# written; the figure must match at least those, and be page-exact
	# after discarding everything.
	blkdiscard /dev/rd0
	[ "$(rd_allocated rd0)" = 0 ]
	head -c $((5 * 4096)) /dev/urandom | dd of=/dev/rd0 bs=4k seek=100 oflag=direct status=none
	[ "$(rd_allocated rd0)" = $((5 * 4096)) ]
}
