#!/usr/bin/env bats
# Memory errors in an rd disk's pages, injected with the kernel's own
# hwpoison injector (debugfs hwpoison/corrupt-pfn; the page behind a
# sector comes from the debugfs pfn file of the module's test build,
# loaded for this suite): rd fails the read of
# that block alone, md reads it from a disk and writes it back, rd puts it
# in a new page. The poisoned page stays poisoned for the VM's life, out
# of use.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"

setup() {
	rd_common_setup
	rd_use_test_module
	[[ -e /sys/kernel/debug/hwpoison/corrupt-pfn ]] || modprobe hwpoison-inject
	INJECT=/sys/kernel/debug/hwpoison/corrupt-pfn
	[[ -w $INJECT ]]
}
teardown() {
	rd_common_teardown
	rd_drop_test_module
}

# rd_pfn INDEX SECTOR: the page frame behind a sector of rdINDEX.
rd_pfn() {
	echo "$1 $2" >/sys/kernel/debug/rdmirror/pfn
	cat /sys/kernel/debug/rdmirror/pfn
}

rd_attr() { cat "/sys/block/$1/rdmirror/$2"; }

# poison PFN: what memory_failure() does to a page when the hardware
# reports its memory bad. For a page the kernel itself holds, as rd's are,
# it sets the page's hwpoison flag and answers EBUSY (it cannot unmap or
# migrate the page): the reads below show whether the flag took.
poison() {
	local out
	out=$( { echo "$1" >"$INJECT"; } 2>&1) || [[ "$out" == *"Device or resource busy"* ]]
}

@test "a memory error on a bare disk: that block reads EIO, nothing else changes, writes mend it sector by sector" {
	rd_add $((16 * MiB))
	head -c $((4 * MiB)) /dev/urandom >"$T/data"
	dd if="$T/data" of=/dev/rd0 bs=1M oflag=direct status=none
	pfn=$(rd_pfn 0 2048)
	poison "$pfn"
	# the 4 KiB block at 1 MiB
	run dd if=/dev/rd0 of=/dev/null bs=4k skip=256 count=1 iflag=direct status=none
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Input/output error"* ]]
	# every other block reads back as written
	dd if=/dev/rd0 bs=4k count=256 iflag=direct status=none | cmp - <(head -c $MiB "$T/data")
	dd if=/dev/rd0 bs=4k skip=257 count=767 iflag=direct status=none |
		cmp - <(tail -c +$((MiB + 4096 + 1)) "$T/data")
	[ "$(rd_attr rd0 memory_errors)" = 1 ]
	[ "$(rd_attr rd0 replaced_pages)" = 0 ]
	# a second read fails the same way, counted once
	run dd if=/dev/rd0 of=/dev/null bs=512 skip=2049 count=1 iflag=direct status=none
	[ "$status" -ne 0 ]
	[ "$(rd_attr rd0 memory_errors)" = 1 ]
	dmesg | grep -q "rd0: memory error at sector 2048"
	# rdctl names it
	run rdctl --status
	echo "$output"
	[[ "$output" == *"rd0 met 1 memory error (0 pages replaced): 1 page reads as I/O errors until written again"* ]]
	# a write of one sector puts the block in a new page; the kernel
	# flagged the old one, so nothing else of it is read: the block's
	# other sectors read as errors until written, each on its own
	dd if="$T/data" of=/dev/rd0 bs=512 skip=2049 seek=2049 count=1 oflag=direct status=none
	[ "$(rd_attr rd0 replaced_pages)" = 1 ]
	[ "$(rd_pfn 0 2048)" != "$pfn" ]
	dd if=/dev/rd0 bs=512 skip=2049 count=1 iflag=direct status=none |
		cmp - <(tail -c +$((MiB + 512 + 1)) "$T/data" | head -c 512)
	for sector in 2048 2050 2055; do
		run dd if=/dev/rd0 of=/dev/null bs=512 skip=$sector count=1 iflag=direct status=none
		[ "$status" -ne 0 ]
	done
	dd if="$T/data" of=/dev/rd0 bs=512 skip=2048 seek=2048 count=1 oflag=direct status=none
	dd if="$T/data" of=/dev/rd0 bs=512 skip=2050 seek=2050 count=6 oflag=direct status=none
	dd if=/dev/rd0 bs=4k count=1024 iflag=direct status=none | cmp - "$T/data"
	[ "$(rd_attr rd0 replaced_pages)" = 1 ]
	# the allocated bytes did not change: one page for one
	[ "$(rd_allocated rd0)" = $((4 * MiB)) ]
}

@test "a memory error in the RAM member: md reads the block from the disk, rewrites it, and RAM serves it again" {
	hdd=$(hdd 1)
	rd_add $((32 * MiB))
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		--assume-clean --bitmap=none /dev/rd0 --write-mostly "/dev/$hdd"
	head -c $((8 * MiB)) /dev/urandom >"$T/data"
	dd if="$T/data" of=/dev/md0 bs=1M oflag=direct status=none
	offset=$(md_attr dev-rd0/offset)
	# the page behind the array's block at 4 MiB
	pfn=$(rd_pfn 0 $((offset + 8192)))
	errors=$(md_attr dev-rd0/errors)
	poison "$pfn"
	dd if=/dev/md0 bs=4k skip=1024 count=1 iflag=direct status=none |
		cmp - <(tail -c +$((4 * MiB + 1)) "$T/data" | head -c 4096)
	# md corrected it: read from the other member, written back to rd0,
	# read again ("read error corrected"), counted in rd0's errors
	echo "md errors for rd0: $errors -> $(md_attr dev-rd0/errors)"
	[ "$(md_attr dev-rd0/errors)" -gt "$errors" ]
	dmesg | grep -q "md/raid1:md0: read error corrected (8 sectors at $((offset + 8192)) on rd0)"
	[ "$(rd_attr rd0 memory_errors)" = 1 ]
	[ "$(rd_attr rd0 replaced_pages)" = 1 ]
	# rd0 stays an in-sync member, nothing degraded
	grep -q in_sync /sys/block/md0/md/dev-rd0/state
	[ "$(md_attr degraded)" = 0 ]
	# the next read of that block comes from RAM, not the disk
	hdd_reads=$(disk_reads "$hdd")
	dd if=/dev/md0 bs=4k skip=1024 count=1 iflag=direct status=none |
		cmp - <(tail -c +$((4 * MiB + 1)) "$T/data" | head -c 4096)
	[ "$(disk_reads "$hdd")" = "$hdd_reads" ]
	# and the whole array reads back
	dd if=/dev/md0 bs=1M count=8 iflag=direct status=none | cmp - "$T/data"
	# rdctl names it, and the fix
	run rdctl --status
	echo "$output"
	[[ "$output" == *"md0: RAM member rd0 met 1 memory error (1 page replaced, 0 not yet rewritten)"* ]]
	[[ "$output" == *"rdctl --refresh /dev/md0"* ]]
}
