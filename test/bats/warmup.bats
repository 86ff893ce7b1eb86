#!/usr/bin/env bats
# The warm start (utils/mirror/warmup.h): a RAM member that --release took out
# comes back by a copy of the array and a re-add, and md recovers only what
# was written since it left. Each test checks the data that RAM serves.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"
# shellcheck source=test/bats/warmup-helpers.bash
. "$BATS_TEST_DIRNAME/warmup-helpers.bash"

@test "warm start: the copy plus md's recovery of what was written since; RAM serves the right data" {
	make_mirror
	release
	[[ "$output" == *"superblock kept for a warm start"* ]]
	ls "$RDCTL_STATE_DIR"/warm-*.sb
	scribble 100 4		# written while the RAM member is away
	r1=$(disk_read_bytes "$H1")
	r2=$(disk_read_bytes "$H2")
	touch "$T/hold"
	run rdctl --restore --config "$CONF"
	echo "restore: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warm start: copying md0"* ]]
	[ -z "$(ls "$RDCTL_STATE_DIR")" ]	# the record is used once
	# the copy reads with one reader a disk: each disk gave about a quarter
	# of the array by the copy's half (one reader would keep to one disk)
	wait_held
	size=$(blockdev --getsize64 /dev/md0)
	r1=$(($(disk_read_bytes "$H1") - r1))
	r2=$(($(disk_read_bytes "$H2") - r2))
	echo "the copy's first half read $r1 bytes from $H1, $r2 from $H2 (array: $size)"
	[ "$r1" -ge $((size / 8)) ]
	[ "$r2" -ge $((size / 8)) ]
	write_during_copy
	# monitoring: a warm-up, OK, with its progress
	run rdctl --status --nagios --config "$CONF"
	echo "nagios: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == "RDMIRROR OK"* ]]
	run rdctl --status --json --config "$CONF"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.warnings[] | select(.code == "warm_up_copy") | .severity' <<<"$output")" = OK ]
	[ "$(jq -r '.mirrors[0].state' <<<"$output")" = recovering ]
	# What md's own monitors see meanwhile (README, Monitoring): /proc/mdstat,
	# which node_exporter's md collector reads, counts 2 of 3 members, and
	# mdadm's monitor reports the array degraded.
	grep -A1 '^md0' /proc/mdstat | tee "$T/mdstat"
	grep -q '\[3/2\]' "$T/mdstat"
	printf '#!/bin/sh\necho "$@" >>%s\n' "$T/md-events" >"$T/md-event"
	chmod +x "$T/md-event"
	mdadm --monitor --scan --oneshot --config="$RDCTL_MDADM_CONF" --program="$T/md-event"
	cat "$T/md-events"
	grep -q '^DegradedArray /dev/md0' "$T/md-events"
	want=$(md_sum)		# what the disks hold, the only copy md reads now
	warm_finish rd0 "$want"
}

# Each copy reader reads its own disk past md (utils/mirror/warm_copy.c):
# a disk with a recorded bad block must be read through md, which reads
# that range from the other disk. The block on $H1 holds other data, as a
# write it missed would leave it; the bitmap is clean, so md's recovery
# does not overwrite what the copy took.
@test "warm start: a disk with a recorded bad block is not read past md" {
	local ho bad ro
	make_mirror
	wait_clean
	want=$(md_sum)
	release
	ho=$(md_attr "dev-$H1/offset")
	bad=$((ho + 2048))	# the array's second MiB, on $H1
	echo "$bad 8" >"/sys/block/md0/md/dev-$H1/bad_blocks"
	md_attr "dev-$H1/bad_blocks"
	[ "$(md_attr "dev-$H1/bad_blocks")" = "$bad 8" ]
	rd-random 4096 | dd of="/dev/$H1" bs=512 seek="$bad" oflag=direct conv=notrunc status=none
	[ "$(md_sum)" = "$want" ]	# md reads it from $H2
	run rdctl --restore --config "$CONF" --wait --timeout 300
	echo "restore: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warm start: copying md0"* ]]
	[ "$(md_attr dev-rd0/state)" = in_sync ]
	wait_idle
	ro=$(md_attr dev-rd0/offset)
	rd-cmp /dev/rd0 $(((ro + 2048) * 512)) "/dev/$H2" $(((ho + 2048) * 512)) 4096
	[ "$(md_sum)" = "$want" ]	# served by rd0
}


@test "--create brings its RAM member in by a warm start: writes during the copy recovered" {
	# (on 6.12 and newer only: on 6.1 journey.bats's --create comes in by
	# this warm start, and test 1 here has md recover the writes made
	# during the copy; what this test adds is rdctl's create verb around
	# them, the same code on every kernel)
	case $(uname -r) in
	6.1.*) skip "rdctl's create around the warm start: run on 6.12 and newer" ;;
	esac
	fill_disks
	touch "$T/hold"
	run rdctl --create /dev/md0 "/dev/$H1" "/dev/$H2" --config "$CONF"
	echo "create: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"# warm start: copy /dev/md0 into rd0, then mdadm --re-add it"* ]]
	[[ "$output" == *"Created md0: rd0 ("*") by a warm start"* ]]
	write_during_copy
	want=$(md_sum)
	warm_finish rd0 "$want"
}

@test "--refresh brings the RAM member afresh by a warm start: a block wrong in RAM mended, writes during the copy recovered" {
	# (on 6.12 and newer only: on 6.1 year.bats's --refresh and test 1
	# here meet md's paths; the verb is rdctl's own code)
	case $(uname -r) in
	6.1.*) skip "rdctl's refresh around the warm start: run on 6.12 and newer" ;;
	esac
	make_mirror
	wait_clean
	# a block that RAM alone has wrong (as after a memory error)
	ro=$(md_attr dev-rd0/offset)
	head -c 4096 /dev/urandom | dd of=/dev/rd0 bs=4096 seek=$((ro / 8 + 1000)) oflag=direct conv=notrunc status=none
	touch "$T/hold"
	run rdctl --refresh /dev/md0 --config "$CONF"
	echo "refresh: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warm start"*"written during the copy"* ]]
	wait_held
	spread
	rd=$(sed -n 's/^rd //p' "$RDCTL_RUN_DIR"/warmup-md0.state)
	count_io "$rd"
	scribble 8 4		# written during the copy, into the part already copied
	want=$(md_sum)
	warm_finish "$rd" "$want"
}

@test "a release during the warm-up copy stops it and detaches the disk; md does not get it back" {
	# (on 6.1 only: the warm-up daemon's life, stopped or killed, is
	# rdctl's own code; md's part, the re-add of a kept superblock and the
	# recovery of what the bitmap marks, runs on 6.12 in tests 1 and 6)
	case $(uname -r) in
	6.1.*) ;;
	*) skip "rdctl's warm-up daemon stopped or killed: run on 6.1" ;;
	esac
	make_mirror
	want=$(md_sum)
	release
	touch "$T/hold"
	run rdctl --restore --config "$CONF"
	[ "$status" -eq 0 ]
	wait_held
	run rdctl --release
	echo "release: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warm-up copy stopped, rd0 detached"* ]]
	[ ! -e /sys/block/rd0 ]
	rm -f "$T/hold"
	sleep 2
	[ -z "$(ls -d /sys/block/md0/md/dev-rd* 2>/dev/null)" ]
	[ -z "$(ls "$RDCTL_RUN_DIR"/warmup-* 2>/dev/null)" ]
	[ "$(md_sum)" = "$want" ]
	# a warm-up daemon killed (a crash of rdctl) with the disks not
	# write-mostly: the next restore starts over and puts them back
	touch "$T/hold"
	run rdctl --restore --config "$CONF"
	[ "$status" -eq 0 ]
	wait_held
	wm_none
	pkill -9 -x rdctl
	rm -f "$T/hold"
	# and the next restore brings it back (no record: a warm start from the array's own)
	run rdctl --restore --config "$CONF" --wait --timeout 300
	echo "restore: $output"
	[ "$status" -eq 0 ]
	[ "$(md_attr dev-rd0/state)" = in_sync ]
	wm_both
	[ "$(md_sum)" = "$want" ]
}

@test "a kept superblock md no longer accepts (written in full since): a full recovery, data intact" {
	make_mirror
	release
	rec=$(echo "$RDCTL_STATE_DIR"/warm-*.sb)
	cp "$rec" "$T/old.sb"
	run rdctl --restore --config "$CONF" --wait --timeout 300
	[ "$status" -eq 0 ]
	wait_idle
	# written with every member in: md clears the bitmap and moves its events_cleared on
	scribble 0 64
	sleep 6
	mdadm /dev/md0 --fail /dev/rd0 --remove /dev/rd0
	rdctl --detach rd0
	cp "$T/old.sb" "$rec"
	scribble 150 4
	want=$(md_sum)
	touch "$T/hold"
	run rdctl --restore --config "$CONF"
	echo "restore: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warm start"* ]]
	wait_held
	count_io rd0
	# bytes copied by the hold (every reader at its stretch's half)
	copied=$(sed -n 's/^done //p' "$RDCTL_RUN_DIR"/warmup-md0.state)
	rm "$T/hold"
	# md refuses the re-add and recovers all of the disk: the daemon's state
	# says so meanwhile, for --status (warm_start_full)
	for _ in $(seq 1200); do
		phase=$(sed -n 's/^phase //p' "$RDCTL_RUN_DIR"/warmup-md0.state 2>/dev/null) || phase=""
		if [ -n "$phase" ] && [ "$phase" != copy ]; then break; fi
		sleep 0.05
	done
	echo "the warm-up's phase after the copy: ${phase:-none}"
	[ "$phase" = full ]
	run rdctl --restore --config "$CONF" --wait --timeout 300
	echo "restore: $output"
	[ "$status" -eq 0 ]
	wait_idle
	[ "$(md_attr dev-rd0/state)" = in_sync ]
	size=$(blockdev --getsize64 /dev/md0)
	written=$(rd_written rd0)
	echo "rd0 written since the copy's half ($copied bytes copied): $written bytes for an array of $size"
	[ "$written" -ge $((size - copied + size)) ]	# the rest of the copy, then md's full recovery
	wm_both
	[ "$(md_sum)" = "$want" ]
	md_check_clean
}

# rdctl killed (kill -9, a crash) after the warm-up wrote rd0's
# superblock and before md took rd0 back: rd0 then holds a whole copy and
# a superblock md would accept, outside the array. Nothing may call it in
# sync meanwhile, and the next restore must end with RAM serving the data
# written during the copy (md's bitmap still has those chunks: the array
# stayed degraded).
@test "the warm-up killed between rd0's superblock and the re-add: nothing in sync meanwhile, the next restore recovers the writes" {
	# (on 6.1 only, as the test above: rdctl's own code)
	case $(uname -r) in
	6.1.*) ;;
	*) skip "rdctl's warm-up daemon killed: run on 6.1" ;;
	esac
	make_mirror
	wait_clean
	release
	# (RDCTL_MDADM: the warm-up's --re-add kills the daemon that ran it)
	cat >"$T/mdadm" <<-WRAP
		#!/bin/bash
		for a; do
			if [ "\$a" = --re-add ]; then touch "$T/killed"; kill -9 "\$PPID"; exit 1; fi
		done
		exec mdadm "\$@"
	WRAP
	chmod +x "$T/mdadm"
	touch "$T/hold"
	RDCTL_MDADM=$T/mdadm run rdctl --restore --config "$CONF"
	echo "restore: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warm start: copying md0"* ]]
	write_during_copy
	want=$(md_sum)
	rm "$T/hold"
	for _ in $(seq 600); do
		[ -e "$T/killed" ] && break
		sleep 0.2
	done
	[ -e "$T/killed" ]
	sleep 1
	# rd0: a superblock, outside the array
	grep -qE "State : (active|clean)" < <(mdadm -E /dev/rd0)
	[ -z "$(ls -d /sys/block/md0/md/dev-rd* 2>/dev/null)" ]
	run rdctl --status --json --config "$CONF"
	echo "status: $(jq -c '[.status, .mirrors[0].state, [.warnings[].code]]' <<<"$output")"
	[ "$(jq -r '.mirrors[0].state' <<<"$output")" != in_sync ]
	# the next restore: rd0 in sync, RAM serves what was written during
	# the copy, its data area the disk's, md's check clean
	run rdctl --restore --config "$CONF" --wait --timeout 300
	echo "restore --wait: $output"
	[ "$status" -eq 0 ]
	rd=$(ram_member)
	[ "$(md_attr "dev-$rd/state")" = in_sync ]
	# and the killed warm-up's disk is gone, not left holding a copy's
	# worth of memory outside the array
	disks=$(find /sys/block -maxdepth 1 -name 'rd*' -printf '%f ')
	echo "rd disks: $disks"
	[ "$disks" = "$rd " ]
	wm_both
	wait_idle
	[ "$(md_sum)" = "$want" ]
	same_as_disk "$rd"
	md_check_clean
}
