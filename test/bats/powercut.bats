#!/usr/bin/env bats
# The warm start after a power cut (utils/mirror/warm_super.h): a RAM
# member gone without a release comes back by a copy of the array and a
# re-add with a superblock made from the array's own; md recovers only
# what was written during the copy. On Debian's 6.1 and 6.12 and on the
# debug kernel: when md takes a disk back depends on its bitmap's event
# counts, which the kernels move differently.
# The member is compressed (lz4, issue #66: KASAN watches its copies on
# the debug kernel), and after the power cut's warm start comes a clean
# release's: the record and the ratio --release keeps, the restore's
# memory check at that ratio, the member attached compressed again.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"
# shellcheck source=test/bats/warmup-helpers.bash
. "$BATS_TEST_DIRNAME/warmup-helpers.bash"

# lz4_member RD: RD is a compressed disk, with lz4
lz4_member() {
	echo "$1: compressor $(cat "/sys/block/$1/rdmirror/compressor" 2>&1)"
	[ "$(cat "/sys/block/$1/rdmirror/compressor")" = lz4 ]
}
# lz4_status RD: --status shows RD compressed with lz4, its ratio (the
# data is about 2:1: 2 KiB random a page), no checksum error
lz4_status() {
	run rdctl --status --config "$CONF"
	echo "$output"
	[[ "$output" == *"  $1: lz4, ratio "*":1, "*", checksum errors 0"* ]]
	run rdctl --status --json --config "$CONF"
	[ "$status" -eq 0 ]
	jq -c --arg rd "$1" '.disks[] | select(.name == $rd) | {kind, compressed}' <<<"$output"
	jq -e --arg rd "$1" '[.disks[] | select(.name == $rd and .kind == "compressed") | .compressed |
		select(.compressor == "lz4" and .ratio > 1.5 and .checksum_errors == 0)] | length == 1' <<<"$output" >/dev/null
}
mem_avail_mib() { awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo; }

@test "a compressed RAM member (lz4) lost without a release (power cut): a warm start from the array's superblock, writes during the copy recovered; then a clean release's warm start at the ratio it kept" {
	local uuid data alloc ratio avail
	# about 2:1 under lz4 (2 KiB random a page, the rest zeros)
	fill_disks_random 2048
	run rdctl --create /dev/md0 "/dev/$H1" "/dev/$H2" --compress=lz4 --config "$CONF" --wait
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q ' compress=lz4$' "$CONF"
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
	lz4_member rd0
	write_during_copy
	want=$(md_sum)
	# md held to 1 MB/s (its default sync_speed_min, what a busy array
	# gets): the 128 MiB bitmap chunk written during the copy would take
	# 2 minutes, but the warm-up raises the array's own sync_speed_min/max
	# for the RAM member's recovery
	md_speeds 1000 1000
	warm_finish rd0 "$want"
	[ "$WAITED" -lt 60 ]
	lz4_status rd0

	# The clean release: the superblock and the member's ratio kept
	release
	[[ "$output" == *"superblock kept for a warm start"*"its compression ratio "*":1 kept"* ]]
	uuid=$(mdadm --detail --export /dev/md0 | sed -n 's/^MD_UUID=//p')
	read -r data alloc <"$RDCTL_STATE_DIR/ratio-$uuid"
	ratio=$(awk -v d="$data" -v a="$alloc" 'BEGIN { printf "%.2f", d / a }')
	echo "ratio kept: $data bytes of data in $alloc ($ratio:1)"
	((alloc > 0 && data * 2 > alloc * 3))
	# The restore's memory check is at that ratio: with 96 MiB spare,
	# more than a compressed member's least (64 MiB, all a restore
	# without a kept ratio asks) but less than the array takes at its
	# ratio (about 130 MiB), it refuses and attaches nothing
	avail=$(mem_avail_mib)
	echo "reserve $((avail - 96))M" >>"$CONF"
	run rdctl --restore --config "$CONF"
	echo "restore with 96 MiB spare: $output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"md0: not restored: a compressed member that held its data $ratio:1 needs about "* ]]
	[ -z "$(ls -d /sys/block/rd* 2>/dev/null)" ]
	sed -i '/^reserve /d' "$CONF"
	# and with the memory there: the warm start from the kept record, the
	# member compressed with lz4 again, the data the same
	run rdctl --restore --config "$CONF" --wait --timeout 300
	echo "restore --wait: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warm start: copying md0"* ]]
	lz4_member rd0
	[ "$(md_attr dev-rd0/state)" = in_sync ]
	wm_both
	wait_idle
	[ "$(md_sum)" = "$want" ]
	same_as_disk rd0
	md_check_clean
	lz4_status rd0
}
