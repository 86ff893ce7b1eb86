# shellcheck shell=bash
# shellcheck disable=SC2154 # output and status are bats' run's, MiB helpers.bash's
# The warm start's setup and checks, shared by warmup.bats and
# powercut.bats (which runs on the debug kernel too).

# warm_setup: a test's mirror setup, its warm-up state and hold files, and
# md's speed limits as they were (the teardown puts them back); the setup
# of warmup.bats and powercut.bats, and member_disk.bats's first step
warm_setup() {
	rd_common_setup
	rd_mirror_setup
	export RDCTL_STATE_DIR=$T/state RDCTL_TEST_WARMUP_HOLD=$T/hold
	SPEEDS_WERE=("$(cat /proc/sys/dev/raid/speed_limit_min)" "$(cat /proc/sys/dev/raid/speed_limit_max)")
	mkdir -p "$RDCTL_STATE_DIR"
}
setup() { warm_setup; }
teardown() {
	local w killed=""
	# a warm-up daemon of this test must not outlive it
	for w in "$RDCTL_RUN_DIR"/warmup-*.state; do
		if [ -e "$w" ]; then
			kill "$(sed -n 's/^pid //p' "$w")" 2>/dev/null || true
			killed=1
		fi
	done
	# (its own SIGTERM handling, before rd_common_teardown's kill -9)
	if [ -n "$killed" ]; then sleep 0.5; fi
	md_speeds "${SPEEDS_WERE[@]}"
	rd_mirror_teardown
}

# rdctl turns a RAM member's I/O statistics on (queue/iostats) when it
# attaches it: from here on, count what it is written (the copy so far
# is not)
count_io() {
	[ "$(cat "/sys/block/$1/queue/iostats")" = 1 ]
	IO_BASE=$(awk '{ print $7 }' "/sys/block/$1/stat")
}
# bytes written to rdN since count_io (/sys/block/rdN/stat: sectors)
rd_written() { echo $((($(awk '{ print $7 }' "/sys/block/$1/stat") - IO_BASE) * 512)); }
rd_reads() { awk '{ print $1 }' "/sys/block/$1/stat"; }
# md0's checksum, read past the page cache (test/helpers/rd-sum: a changed
# block, not an attacker, is what it must find; dd into md5sum took 2.2
# to 3.1 s of a 6.1 guest under TCG, rd-sum 0.46 to 0.49 s)
md_sum() { rd-sum /dev/md0; }
# write N MiB of random data at MiB OFF of md0 (test/helpers/rd-random:
# 256 MiB through it into dd took 3.0 s in a TCG guest, from head -c of
# /dev/urandom 8.3 s). iflag=fullblock: without it dd writes each read
# of the pipe (64 KiB) as an O_DIRECT write of its own; 256 MiB to a
# stand-in took 4.6 to 4.8 s that way and 1.6 to 1.8 s in 1 MiB writes
# (build/prof/fill.bats, 6.1 guest, 1 vCPU)
scribble() { rd-random $(($2 * MiB)) | dd of=/dev/md0 bs=1M seek="$1" iflag=fullblock oflag=direct conv=notrunc status=none; }
wait_held() {
	for _ in $(seq 300); do
		[ -e "$T/hold.held" ] && return 0
		sleep 0.2
	done
	echo "the warm-up copy never reached its half" >&2
	return 1
}

# write_during_copy: once the held copy is at its half, the reads spread
# over both disks (spread), rd0's statistics on, then 4 MiB of random data
# written at 8 MiB, into the part already copied: what md must recover
write_during_copy() {
	wait_held
	spread
	count_io rd0
	scribble 8 4
}
# md_speeds MIN MAX: md's system-wide recovery limits (KiB/s)
md_speeds() {
	echo "$1" >/proc/sys/dev/raid/speed_limit_min
	echo "$2" >/proc/sys/dev/raid/speed_limit_max
}
# wm_both / wm_none: both disks write-mostly, or neither
wm_both() {
	[[ "$(md_attr "dev-$H1/state")" == *write_mostly* ]]
	[[ "$(md_attr "dev-$H2/state")" == *write_mostly* ]]
}
wm_none() {
	[[ "$(md_attr "dev-$H1/state")" != *write_mostly* ]]
	[[ "$(md_attr "dev-$H2/state")" != *write_mostly* ]]
}
disk_read_bytes() { echo $(($(awk '{ print $3 }' "/sys/block/$1/stat") * 512)); }
# spread: while the RAM member is away, neither disk is write-mostly and
# random reads of md0 go to both (with both write-mostly md reads only
# the first: raid1's read_balance(), and the second gets none).
# The reads go in batches of 8, each submitted in one io_submit() (its
# bios held in the plug until it returns) once the last batch is done:
# read_balance() counts a read as pending on its disk when it chooses
# it, and takes an idle disk before a busy one, so each batch's first
# read goes to the first disk and its second to the other; the rest go
# by head position. Each disk so takes at least 75 of the 600 whatever
# the guest's timing, and the bound is 60.
spread() {
	local a1 a2 n1 n2
	wm_none
	a1=$(disk_reads "$H1")
	a2=$(disk_reads "$H2")
	fio --name=spread --filename=/dev/md0 --rw=randread --bs=4k --direct=1 --ioengine=libaio \
		--iodepth=8 --iodepth_batch_submit=8 --iodepth_batch_complete_min=8 \
		--number_ios=600 --randrepeat=0 --output=/dev/null
	n1=$(($(disk_reads "$H1") - a1))
	n2=$(($(disk_reads "$H2") - a2))
	echo "600 random reads while the RAM member is away: $n1 from $H1, $n2 from $H2"
	[ "$n1" -ge 60 ]
	[ "$n2" -ge 60 ]
}

make_mirror() {
	fill_disks
	rd_create_mirror
}
# fill_disks: the same random data over all of both disks, what --create
# (which takes them as in sync: --assume-clean) then copies into RAM: a
# block out of place cannot hide in zeros.
fill_disks() { fill_disks_random 4096; }
# fill_disks_random N: the same, each 4 KiB page N random bytes and then
# zeros (rd-random): data a compressed member keeps at 4096 / N to 1 or a
# little less. Written past md and rd: through md0 the 256 MiB took 100 s
# of the debug kernel's checks (KASAN, lockdep)
fill_disks_random() {
	rd-random "$(blockdev --getsize64 "/dev/$H1")" "$1" |
		dd of="/dev/$H1" bs=1M iflag=fullblock oflag=direct status=none
	dd if="/dev/$H1" of="/dev/$H2" bs=1M iflag=direct oflag=direct status=none
}

release() {
	run rdctl --release
	echo "release: $output"
	[ "$status" -eq 0 ]
}

# wait_clean: until md has cleared every bit of its write-intent bitmap on
# disk (its daemon clears a chunk's bit some seconds after the chunk's last
# write): a chunk make_mirror wrote must not be recovered with the chunk a
# test writes during the copy, or a recovery of both is as large as a full
# one (the array has two 128 MiB chunks). md's daemon takes a chunk's bit
# down over two of its periods (bitmap/time_base, 5 s by default: 15 s of
# waiting a test): for the wait the period is 1 s (whole seconds: the
# bitmap's superblock keeps it in seconds, and md refuses a bitmap whose
# period reads 0), then as it was, so that nothing after it runs on a
# period other than the array's own.
wait_clean() {
	local base rc=1
	base=$(md_attr bitmap/time_base)
	echo 1 >/sys/block/md0/md/bitmap/time_base
	for _ in $(seq 300); do
		# (md writes the bitmap past the page cache: read it afresh)
		blockdev --flushbufs "/dev/$H1"
		if [[ "$(mdadm -X "/dev/$H1")" == *" 0 dirty"* ]]; then
			rc=0
			break
		fi
		sleep 0.2
	done
	echo "$base" >/sys/block/md0/md/bitmap/time_base
	[ "$(md_attr bitmap/time_base)" = "$base" ]
	[ "$rc" -eq 0 ] || { mdadm -X "/dev/$H1" >&2; return 1; }
}

# A power cut, as far as md and rdctl can tell: the RAM disk gone with no
# release (no record kept), the array assembled from its disks.
lose_ram() {
	mdadm --stop /dev/md0
	rdctl --detach rd0
	udev_settle
	mdadm --assemble --run /dev/md0 "/dev/$H1" "/dev/$H2"
	[ -z "$(ls "$RDCTL_STATE_DIR")" ]
}
# same_as_disk [RD]: RD's (rd0's) data area and $H1's, the array's size,
# the same byte for byte: the RAM member as md left it, read directly (past
# md and the page cache: test/helpers/rd-cmp), not through md
same_as_disk() {
	local rd=${1:-rd0} size ro ho
	size=$(blockdev --getsize64 /dev/md0)
	ro=$(md_attr "dev-$rd/offset")
	ho=$(md_attr "dev-$H1/offset")
	rd-cmp "/dev/$rd" $((ro * 512)) "/dev/$H1" $((ho * 512)) "$size"
}

# md_check_clean: md's check of md0 finds every member holding the same
# bytes (mismatch_cnt 0)
md_check_clean() {
	echo check >/sys/block/md0/md/sync_action
	sleep 1
	wait_idle
	echo "mismatch_cnt $(md_attr mismatch_cnt)"
	[ "$(md_attr mismatch_cnt)" -eq 0 ]
}

# warm_finish RD WANT: let the held copy go and wait for the warm start's
# end (--restore --wait); then RD is in sync in slot 2, was written no more
# than the copy's second half and one 128 MiB bitmap chunk (not a whole
# recovery more), serves WANT (md_sum's answer), holds in its data area
# what the disk holds, and md's check counts no mismatch.
warm_finish() {
	local rd=$1 want=$2 size written reads ram t0=$SECONDS
	rm "$T/hold"
	run rdctl --restore --config "$CONF" --wait --timeout 300
	WAITED=$((SECONDS - t0))
	echo "restore --wait: $output ($WAITED s)"
	[ "$status" -eq 0 ]
	md_speeds "${SPEEDS_WERE[@]}"
	# md's limits of the array as they were before the warm-up raised them
	[[ "$(md_attr sync_speed_min)" == *"(system)"* ]]
	[[ "$(md_attr sync_speed_max)" == *"(system)"* ]]
	# and md's requests in flight, on a kernel that has them (6.16+)
	if [ -e /sys/block/md0/md/sync_io_depth ]; then
		[[ "$(md_attr sync_io_depth)" == *"(system)"* ]]
	fi
	[ "$(md_attr "dev-$rd/state")" = in_sync ]
	[ "$(md_attr "dev-$rd/slot")" = 2 ]
	wm_both		# again, now that RAM is in sync
	wait_idle
	size=$(blockdev --getsize64 /dev/md0)
	written=$(rd_written "$rd")
	echo "$rd written since the copy's half: $written bytes for an array of $size"
	[ "$written" -lt $((size + size / 4)) ]
	reads=$(rd_reads "$rd")
	[ "$(md_sum)" = "$want" ]
	[ "$(rd_reads "$rd")" -gt "$reads" ]	# RAM served it
	# and monitoring shows it: the reads RAM served since rdctl attached it
	run rdctl --status --prometheus --config "$CONF"
	[ "$status" -eq 0 ]
	ram=$(awk -v d="device=\"$rd\"" 'index($0, "rdmirror_mirror_reads_total{") == 1 && index($0, d) { print $2 }' <<<"$output")
	echo "rdmirror_mirror_reads_total of $rd: ${ram:-none}"
	[ "${ram:-0}" -gt 0 ]
	# and --status gives the share RAM served, with the module's defaults
	# (iostats off: rdctl turns the statistics on for its RAM member)
	[ "$(cat /sys/module/rdmirror/parameters/iostats)" = N ]
	run rdctl --status --json --config "$CONF"
	[ "$status" -eq 0 ]
	echo "ram_read_share: $(jq -c '.mirrors[0] | [.ram_reads, .disk_reads, .ram_read_share]' <<<"$output")"
	jq -e '.mirrors[0].ram_read_share > 0' <<<"$output" >/dev/null
	same_as_disk "$rd"
	md_check_clean
}
