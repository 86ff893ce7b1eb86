#!/usr/bin/env bats
# The warm start after a power cut (utils/mirror/warm_super.h): a RAM
# member gone without a release comes back by a copy of the array and a
# re-add with a superblock made from the array's own; md recovers only
# what was written during the copy. On Debian's 6.1 and 6.12 and on the
# debug kernel: when md takes a disk back depends on its bitmap's event
# counts, which the kernels move differently.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"
# shellcheck source=test/bats/warmup-helpers.bash
. "$BATS_TEST_DIRNAME/warmup-helpers.bash"

@test "a RAM member lost without a release (power cut): a warm start from the array's superblock, writes during the copy recovered" {
	make_mirror
	wait_clean
	lose_ram
	# (nothing else written: the first 128 MiB bitmap chunk's bit is set
	# only by the write during the copy, which md alone must recover; a
	# second dirty chunk would make the recovery as large as a full one)
	touch "$T/hold"
	run rdctl --restore --config "$CONF"
	echo "restore: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warm start: copying md0"*"written during the copy"* ]]
	write_during_copy
	want=$(md_sum)
	# md held to 1 MB/s (its default sync_speed_min, what a busy array
	# gets): the 128 MiB bitmap chunk written during the copy would take
	# 2 minutes, but the warm-up raises the array's own sync_speed_min/max
	# for the RAM member's recovery
	md_speeds 1000 1000
	warm_finish rd0 "$want"
	[ "$WAITED" -lt 60 ]
}
