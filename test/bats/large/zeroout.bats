#!/usr/bin/env bats
# Disks larger than the 2 GiB the VM suite runs with: test/check runs this
# file in a VM of its own, with 6 GiB, on Debian's 6.1.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/../helpers.bash"

setup() { rd_common_setup; }
teardown() { rd_common_teardown; }

# Up to 6.10 the block layer put a whole write-zeroes request in one bio,
# whose 32-bit byte count wrapped past 4 GiB: blkdiscard -z returned 0 and
# left data in place. rd advertises write-zeroes bios of at most 4 GiB.
@test "blkdiscard -z over a 5 GiB disk zeroes every byte" {
	local off
	rd_add $((5 * 1024 * MiB))
	# 1 MiB of data at 0, 4.5 GiB and the last MiB
	for off in 0 4608 5119; do
		head -c $MiB /dev/urandom | dd of=/dev/rd0 bs=1M seek=$off oflag=direct status=none
	done
	blkdiscard -z /dev/rd0
	for off in 0 4608 5119; do
		dd if=/dev/rd0 bs=1M skip=$off count=1 iflag=direct status=none >"$T/back"
		echo "MiB $off: $(tr -d '\0' <"$T/back" | wc -c) non-zero bytes"
		cmp -n $MiB "$T/back" /dev/zero
	done
}
