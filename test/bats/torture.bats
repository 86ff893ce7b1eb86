#!/usr/bin/env bats
# The torture suite (issue #14). A RAM mirror made by rdctl --create (md0:
# the RAM member and the two write-mostly stand-ins) under a verifying
# writer and reader (test/helpers/torture-io) that run from start to end,
# through one fault after another:
#   1. a persistent member is failed, removed and re-added;
#   2. the RAM member is failed, removed, detached, and rdctl --restore
#      brings it back (every other cycle --restore drops the failed member
#      itself);
#   3. memory pressure (a process that takes memory until MemAvailable is
#      near zero): a preallocated RAM member must not notice it; the attach
#      of a preallocated member under it must fail cleanly; a lazily
#      allocated member recovered under it takes all the memory there is
#      (see pressure_step for what happens then);
#   4. attach/grow/flush/detach churn of other rd disks from four
#      processes, through rdctl and through raw ioctls, while modprobe -r
#      rdmirror is tried again and again (refused: the RAM member is open);
#   5. rdctl --detach, --flush and --resize (smaller) of the busy RAM
#      member, and the same ioctls raw: each refused.
# After each step the reader must have found nothing wrong and the writer
# must have gone on; at the end every byte written has been read back and
# checked, md's check finds the members equal, the kernel logged no bug
# (teardown) and free memory is back where it started.
#
# STRESS_MINUTES=N repeats the fault cycle until N minutes have passed
# (make check-stress STRESS_MINUTES=N); unset, one cycle (the short form).
# The suite prints, as a TAP comment:
#   torture: N min, B bytes verified, F faults injected, R refusals, M mismatches

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"

setup() {
	rd_common_setup
	H1=$(hdd 1)
	H2=$(hdd 2)
	S=$T/io
	mkdir -p "$S"
	CONF=$T/lazy.conf
	CONF_PRE=$T/prealloc.conf
	printf '# torture.bats\n' >"$CONF"
	FAULTS=0
	REFUSALS=0
	VERIFIER=
	HOG=
	# a sleep that forks nothing (under memory pressure every fork counts)
	mkfifo "$T/nap"
	exec {NAPFD}<>"$T/nap"
}

teardown() {
	local rc=0 p
	touch "$S/hog-release" "$S/stop"
	for p in $HOG $VERIFIER; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	if [[ -n "${NAPFD:-}" ]]; then exec {NAPFD}>&-; fi
	rd_common_teardown || rc=$?
	wipefs -qa "/dev/$H1" "/dev/$H2" >/dev/null 2>&1 || true
	return "$rc"
}

nap() { read -rt "$1" -u "$NAPFD" || true; }

# say TEXT: a line in the TAP output (bats shows stdout only on failure)
say() { echo "# $*" >&3; }

md_attr() {
	local v
	read -r v <"/sys/block/md0/md/$1"
	echo "$v"
}


member_state() {
	local v
	read -r v <"/sys/block/md0/md/dev-$1/state"
	echo "$v"
}

# figure KEY [FILE]: a number from the verifier's progress (or FILE)
figure() {
	local w words
	read -ra words <"${2:-$S/progress}"
	for w in "${words[@]}"; do
		if [[ "$w" == "$1="* ]]; then
			echo "${w#*=}"
			return 0
		fi
	done
	return 1
}

# The verifier is running and has found nothing wrong so far.
io_clean() {
	kill -0 "$VERIFIER"
	[ "$(figure mismatches)" = 0 ]
	[ "$(figure errors)" = 0 ]
}

# wait_records N [TIMEOUT]: until the writer has completed N records
wait_records() {
	local i
	for ((i = 0; i < ${2:-120}; i++)); do
		if [ "$(figure records)" -ge "$1" ]; then return 0; fi
		nap 1
	done
	echo "the writer is stuck at $(figure records) records (wanted $1)" >&2
	return 1
}

# warnings: WARN = the codes of rdctl --status's warnings, WSTATUS its exit
warnings() {
	local out
	WSTATUS=0
	out=$(rdctl --status --json) || WSTATUS=$?
	WARN=" $(jq -r '[.warnings[].code] | unique | join(" ")' <<<"$out") "
}

in_sync_now() {
	local rd
	rd=$(ram_member) || return 1
	[[ "$(member_state "$rd")" == in_sync* ]] || return 1
	[[ "$(md_attr degraded)" == 0 ]] || return 1
	[[ "$(md_attr sync_action)" == idle ]]
}

# wait_in_sync: md0 whole again, its RAM member in sync, idle (10 min at most)
wait_in_sync() {
	local i
	for ((i = 0; i < 600; i++)); do
		if in_sync_now; then return 0; fi
		nap 1
	done
	echo "md0 not back in sync after 600 s:" >&2
	cat /proc/mdstat >&2
	return 1
}

# md_remove DEV: mdadm --remove, again for a while: md may still hold a
# member failed a moment ago (EBUSY)
md_remove() {
	local i
	for ((i = 0; i < 20; i++)); do
		if mdadm /dev/md0 --remove "/dev/$1" 2>"$T/remove.err"; then
			return 0
		fi
		nap 0.5
	done
	cat "$T/remove.err" >&2
	return 1
}

# The mirror is whole: RAM member in sync, both disks in sync and
# write-mostly, and rdctl --status has no warning.
mirror_whole() {
	local rd
	rd=$(ram_member)
	[[ "$(member_state "$rd")" == in_sync ]]
	[[ "$(member_state "$H1")" == *in_sync* ]]
	[[ "$(member_state "$H1")" == *write_mostly* ]]
	[[ "$(member_state "$H2")" == *in_sync* ]]
	[[ "$(member_state "$H2")" == *write_mostly* ]]
	warnings
	echo "status warnings:$WARN"
	[ "$WSTATUS" = 0 ]
}

# start_hog LEAVE_MIB HOLD_S: the memory hog, in the background ($HOG);
# returns when it holds its memory, HOG_READY says how much.
start_hog() {
	local i
	rm -f "$S"/hog-*
	torture-io hog "$S" --leave "$1" --hold "$2" 3>&- &
	HOG=$!
	for ((i = 0; i < 300; i++)); do
		if [[ -e "$S/hog-ready" ]]; then break; fi
		kill -0 "$HOG"
		nap 0.5
	done
	HOG_READY=$(<"$S/hog-ready")
	echo "hog: $HOG_READY"
}

# hog_alive: the hog runs (not gone, not a zombie)
hog_alive() {
	local st
	read -r _ _ st _ <"/proc/$HOG/stat" 2>/dev/null || return 1
	[[ "$st" != Z ]]
}

# stop_hog: ask the hog to let go, wait for it; HOG_RC is its exit status
# (137: the OOM killer took it)
stop_hog() {
	HOG_RC=0
	touch "$S/hog-release"
	wait "$HOG" || HOG_RC=$?
	HOG=
}

# The kernel log since the test's mark (see rd_common_setup).
log_since_mark() {
	dmesg | awk -v mark="$RD_LOG_MARK" '
		index($0, mark) { n = 0; next }
		{ lines[n++] = $0 }
		END { for (i = 0; i < n; i++) print lines[i] }'
}

# log_check_oom PID|none: the OOM killer took the hog (PID), or nobody
# (none). Its report is no
# bug, though it has a "Call Trace" (of the allocation that found no
# memory), and neither is the report of another allocation that failed
# while memory ran out ("page allocation failure", printed by the
# allocator for callers that may fail and did not ask for silence, such as
# virtio's GFP_ATOMIC descriptors or 9p's buffers for the guest's root):
# check the log since the mark without those reports (a report that killed
# anything but the hog, or whose trace passes through rdmirror, whose
# allocations are all __GFP_NOWARN, stays in; so does a kill before the
# hog's), then mark the log here, so
# that the teardown checks from here on. The lines that fail the check
# come first in the output, the whole log after them.
log_check_oom() {
	local log bad
	log=$(log_since_mark | awk -v pid="$1" '
		/invoked oom-killer:/ { inrep = "oom"; blk = "" }
		/page allocation failure:/ { inrep = "alloc"; blk = "" }
		inrep {
			blk = blk $0 "\n"
			if (inrep == "oom" && index($0, "Out of memory: Killed process ")) {
				inrep = ""
				if (index($0, "Killed process " pid " ")) {
					hog = 1
				} else if (!hog || index(blk, "[rdmirror]")) {
					printf "%s", blk
				}
			} else if (inrep == "alloc" && index($0, "</TASK>")) {
				inrep = ""
				if (index(blk, "[rdmirror]")) printf "%s", blk
			}
			next
		}
		{ print }
		END { if (inrep) printf "%s", blk }')
	OOM_LINES=$(log_since_mark | grep -E 'invoked oom-killer:|Out of memory: Killed process|page allocation failure:' | sed 's/^\[ *[0-9.]*\] //')
	echo "$OOM_LINES"
	# After the hog is chosen, its exit marks it done (MMF_OOM_SKIP) while
	# its gigabyte is still on its way back to the free lists, and a user
	# space allocation retrying meanwhile can have the kernel choose a
	# second victim (seen once in a soak on 6.12: a udev worker, 16 ms
	# after the hog, the hog's THPs already unmapped, free pages not yet
	# grown). That is the kernel's OOM killer, not rdmirror: such a kill
	# is allowed only after the hog's, and only from a report whose trace
	# does not pass through rdmirror; how many is printed.
	if [[ "$1" != none ]]; then
		local others
		others=$(grep -c 'Out of memory: Killed process' <<<"$OOM_LINES" || true)
		others=$((others - $(grep -c "Out of memory: Killed process $1 " <<<"$OOM_LINES" || true)))
		if ((others > 0)); then
			say "the OOM killer took $others more process(es) after the hog, while the hog's memory was still being freed (a kernel race; no such report passes through rdmirror)"
		fi
	fi
	bad=$(rd_kernel_bad <<<"$log")
	if [[ -n "$bad" ]]; then
		echo "kernel log lines that fail the test (the OOM report on the hog and other allocation failures left out):" >&2
		echo "$bad" >&2
		echo "the whole kernel log since the mark:" >&2
		log_since_mark >&2
		return 1
	fi
	RD_LOG_MARK="rdtest: torture: log checked after an OOM kill ($RANDOM$RANDOM)"
	echo "$RD_LOG_MARK" >/dev/kmsg
}

# --- the faults -------------------------------------------------------------

# restore_whole CONFIG [added]: rdctl --restore brings a new RAM member:
# a warm start (the array's copy into it, then md recovers what the writer
# wrote meanwhile; no record was kept), or with "added" (no bitmap) md
# recovers it whole; the reader found nothing wrong, the mirror is whole
restore_whole() {
	local out
	out=$(rdctl --restore --config "$1" --wait)
	echo "$out"
	if [[ "${2:-}" == added ]]; then
		[[ "$out" == *"added to md0"* ]]
	else
		[[ "$out" == *"warm start: copying md0"*"written during the copy"* ]]
	fi
	wait_in_sync
	io_clean
	mirror_whole
}

# fail_member DEV CODE...: mdadm --fail DEV; md must show it faulty and
# rdctl --status exit 3 with each warning CODE
fail_member() {
	local d=$1 code
	shift
	mdadm /dev/md0 --fail "/dev/$d"
	[[ "$(member_state "$d")" == *faulty* ]]
	warnings
	echo "$d failed: status $WSTATUS, warnings:$WARN"
	[ "$WSTATUS" = 3 ]
	for code in "$@"; do
		[[ "$WARN" == *" $code "* ]]
	done
}

# 1. A persistent member fails, is removed and re-added (the bitmap makes
# the recovery short); rdctl --status warns while the array is degraded.
fault_disk() {
	local d=$1 n
	n=$(figure records)
	fail_member "$d" degraded
	md_remove "$d"
	wait_records $((n + 10))
	mdadm /dev/md0 --re-add "/dev/$d"
	wait_in_sync
	io_clean
	mirror_whole
	FAULTS=$((FAULTS + 1))
}

# 2. The RAM member fails; reads go to the disks (the reader checks them);
# it is removed and detached (odd cycles) or left for --restore to drop
# (even cycles); rdctl --restore brings a new one back. CONFIG: which one.
fault_ram() {
	local cycle=$1 config=$2 rd n
	rd=$(ram_member)
	n=$(figure records)
	fail_member "$rd" ram_not_in_sync degraded
	if ((cycle % 2)); then
		md_remove "$rd"
		rdctl --detach "$rd"
		[ ! -e "/sys/block/$rd" ]
	fi
	wait_records $((n + 10))
	restore_whole "$config"
	FAULTS=$((FAULTS + 1))
}

# hog_level MIB: the hog takes or gives back memory until MemAvailable is
# about MIB
hog_level() {
	local i
	rm -f "$S/hog-leveled"
	echo "$1" >"$S/hog-level.new"
	mv "$S/hog-level.new" "$S/hog-level"
	for ((i = 0; i < 240; i++)); do
		if [[ -e "$S/hog-leveled" ]]; then break; fi
		hog_alive
		nap 0.5
	done
	echo "hog leveled: $(<"$S/hog-leveled")"
}

# lazy_pressure_try (step 3c, one try; the hog leaves 160 MiB): restore a
# lazily allocated member with its recovery held back, check the warning,
# let the recovery go, and wait until md has acted on a failed write to
# the member or the hog is gone. Sets rd, held, t0, t1 and st (the
# member's state at the end).
lazy_pressure_try() {
	local i gone
	# (the guest's speed_limit_min is high: md throttles only above the minimum)
	echo 1 >/sys/block/md0/md/sync_speed_min
	echo 1000 >/sys/block/md0/md/sync_speed_max
	# --ignore-memory: past rdctl's own memory check, which keeps a reserve (#20)
	rdctl --restore --config "$CONF" --ignore-memory
	rd=$(ram_member)
	[ "$(<"/sys/block/$rd/rdmirror/preallocated")" = 0 ]
	warnings
	echo "status under pressure, recovery held back: $WSTATUS,$WARN"
	[ "$WSTATUS" = 3 ]
	[[ "$WARN" == *" ram_over_available "* ]]
	[[ "$WARN" == *" ram_not_in_sync "* ]]
	held=$(rd_allocated "$rd")
	t0=${EPOCHREALTIME/./}
	echo system >/sys/block/md0/md/sync_speed_min
	echo system >/sys/block/md0/md/sync_speed_max
	# (builtins only: under this pressure every fork waits for memory)
	# Until md has acted on a failed write (its error handling runs in
	# md's thread, a moment after the write failed), at most HOLD + 600 s,
	# and at most 60 s after the hog is gone (then memory is back and no
	# write fails any more). Acted on means settled: md's state_show()
	# says "faulty" and "blocked" also for a member that is not Faulty but
	# has bad blocks md has not yet written to the superblock
	# (badblocks.unacked_exist); only once "blocked" is gone does
	# "faulty" mean md failed it, and "write_error" alone that md kept it
	# with its bad blocks.
	gone=0
	for ((i = 0; i <= 5 * (hold + 600) && gone <= 5 * 60; i++)); do
		read -r st <"/sys/block/md0/md/dev-$rd/state"
		if [[ ("$st" == *faulty* || "$st" == *write_error*) && "$st" != *blocked* ]]; then
			break
		fi
		if ((gone)) || ! hog_alive; then gone=$((gone + 1)); fi
		nap 0.2
	done
	t1=${EPOCHREALTIME/./}
	echo "member state after $(((t1 - t0) / 1000)) ms: $st"
}

# 3. Memory pressure, from one hog (oom_score_adj 1000; the suite's own
# processes have -500, so that if the kernel's OOM killer has to act, it
# takes the hog):
#  a. A preallocated RAM member, under a hog that leaves 48 MiB of
#     MemAvailable for HOLD s: nothing changes. The member allocates
#     nothing, stays in sync, rdctl --status has no warning, the writer
#     goes on, the OOM killer has nothing to do.
#  b. The member leaves; under the same hog its attach, which needs all of
#     its memory at once, must fail cleanly: --restore fails with ENOMEM,
#     no disk is left behind, the array goes on from the disks, and the
#     hog is not OOM-killed.
#  c. Under the same hog, now leaving 160 MiB (less than a member holds
#     once md has recovered it), a lazily allocated member is restored with
#     md's recovery held back: rdctl --status must warn that it may need
#     more memory than there is. Then the recovery and the writer take all
#     the memory there is. The rd write path reclaims while that makes
#     progress, then fails the write (__GFP_RETRY_MAYFAIL) instead of
#     waiting for the OOM killer: md must then fail the member, or keep it
#     with the failed blocks marked bad (their reads go to the disks); the
#     array goes on, rdctl --status says which, the writer sees no error,
#     and once the hog is gone --restore puts a whole new member in. The
#     machine is out of memory meanwhile: a user-space allocation may have
#     the OOM killer take the hog (and only the hog); that is printed.
#     Which allocation meets the empty memory first is a race: when the
#     OOM killer took the hog before any write to the member failed, the
#     member must come in sync with nothing lost, and the step is tried
#     again with a new hog, up to 3 times. A member that waits in the
#     allocator for the OOM killer instead of failing loses every try.
pressure_step() {
	local hold=$1 rd i alloc st n0 out rc held t0 t1 outcome try hog_at
	# a.
	rd=$(ram_member)
	mdadm /dev/md0 --fail "/dev/$rd"
	md_remove "$rd"
	rdctl --detach "$rd"
	rdctl --restore --config "$CONF_PRE" --wait
	wait_in_sync
	rd=$(ram_member)
	[ "$(<"/sys/block/$rd/rdmirror/preallocated")" = 1 ]
	alloc=$(rd_allocated "$rd")
	[ "$alloc" = $(($(<"/sys/block/$rd/size") * 512)) ]
	start_hog 48 $((hold + 600))
	HOG_PID=$HOG
	n0=$(figure records)
	warnings
	echo "status under pressure: $WSTATUS,$WARN"
	[ "$WSTATUS" = 0 ]
	for ((i = 0; i < hold; i++)); do
		read -r st <"/sys/block/md0/md/dev-$rd/state"
		[[ "$st" == in_sync ]]
		nap 1
	done
	hog_alive
	[ "$(figure records)" -gt "$n0" ]
	[ "$(rd_allocated "$rd")" = "$alloc" ]
	io_clean
	say "pressure on a preallocated RAM member (hog $HOG_READY MiB, $hold s): in sync, allocated nothing, no warning, no OOM kill; the writer did $(($(figure records) - n0)) records meanwhile"

	# b.
	mdadm /dev/md0 --fail "/dev/$rd"
	md_remove "$rd"
	rdctl --detach "$rd"
	hog_level 48
	# rdctl itself refuses a member that does not fit with the reserve
	# (#20); with --ignore-memory the attach reaches the module, which refuses the
	# preallocation
	rc=0
	out=$(rdctl --restore --config "$CONF_PRE" 2>&1) || rc=$?
	echo "$out"
	[ "$rc" = 1 ]
	[[ "$out" == *"does not fit in memory"* ]]
	[ -z "$(find /sys/block -maxdepth 1 -name 'rd*')" ]
	rc=0
	out=$(rdctl --restore --config "$CONF_PRE" --ignore-memory 2>&1) || rc=$?
	echo "$out"
	[ "$rc" = 1 ]
	[[ "$out" == *"not enough memory for a"*"prealloc needs all of it free now"* ]]
	run ram_member
	[ "$status" = 1 ]
	[ -z "$(find /sys/block -maxdepth 1 -name 'rd*')" ]
	[ "$(md_attr degraded)" = 1 ]
	hog_alive
	REFUSALS=$((REFUSALS + 1))
	io_clean
	say "attach of a preallocated member under the hog: refused cleanly (ENOMEM, nothing left behind, no OOM kill)"

	# c. (md's own recovery: without a bitmap, --restore adds the member
	# as a new one, no warm-up copy)
	mdadm --grow --bitmap=none /dev/md0
	hog_level 160
	hog_at=$(<"$S/hog-leveled")
	n0=$(figure records)
	for ((try = 1; ; try++)); do
		lazy_pressure_try
		if [[ "$st" == *faulty* || "$st" == *write_error* ]]; then
			break
		fi
		# The OOM killer took the hog before a write to the member failed:
		# a user-space allocation met the empty memory first. Nothing is
		# lost: the recovery went on with the hog's memory and the member
		# comes in sync. Try again with a new hog; a member whose writes
		# never fail (it waits in the allocator for the OOM killer) fails
		# every try.
		stop_hog
		echo "hog: exit $HOG_RC"
		[ "$HOG_RC" = 137 ]
		log_check_oom "$HOG_PID"
		wait_in_sync
		io_clean
		say "pressure on a lazy RAM member, try $try: the OOM killer took the hog (and only the hog) before a write to the member failed; the member came in sync, no data lost"
		if ((try == 3)); then
			echo "in $try tries no write to the RAM member failed for want of memory: the OOM killer had to act each time" >&2
			return 1
		fi
		mdadm /dev/md0 --fail "/dev/$rd"
		md_remove "$rd"
		rdctl --detach "$rd"
		start_hog 160 $((hold + 600))
		HOG_PID=$HOG
		hog_at=$HOG_READY
	done
	warnings
	echo "status: $WSTATUS,$WARN"
	[ "$WSTATUS" = 3 ]
	if [[ "$st" == *faulty* ]]; then
		outcome="md failed the member"
		[[ "$WARN" == *" ram_not_in_sync "* ]]
		[ "$(md_attr degraded)" = 1 ]
	else
		outcome="md kept the member ($st, $(wc -l <"/sys/block/md0/md/dev-$rd/bad_blocks") bad-block ranges)"
		[[ "$WARN" == *" ram_write_error "* ]]
	fi
	io_clean
	stop_hog
	echo "hog: exit $HOG_RC, $(cat "$S/hog-done" 2>/dev/null || echo 'killed before it let go')"
	if ((HOG_RC == 137)); then
		log_check_oom "$HOG_PID"
		outcome="$outcome; then a user-space allocation had the OOM killer take the hog"
	else
		[ "$HOG_RC" = 0 ]
		# (no process may have been killed; allocation failures elsewhere
		# are no bug here either)
		log_check_oom none
	fi
	restore_whole "$CONF" added
	mdadm --grow --bitmap=internal /dev/md0
	say "pressure on a lazy RAM member (try $try, hog $hog_at MiB; $((held >> 20)) MiB in the member when rdctl --status warned): a write failed $(((t1 - t0) / 1000)) ms after the recovery was let go, $outcome; --restore brought a new one; the writer did $(($(figure records) - n0)) records meanwhile"
	FAULTS=$((FAULTS + 3))
}

# churn_rdctl NAME ROUNDS: attach, write 4 MiB, grow, flush, detach with
# rdctl; every step checked. Writes the rounds done to $T/churn-NAME.
churn_rdctl() {
	local i rd data=$T/data-$1
	head -c $((4 * MiB)) /dev/urandom >"$data"
	for ((i = 0; i < $2; i++)); do
		rd=$(rd_add $((16 * MiB))) || return 1
		dd if="$data" of="/dev/$rd" bs=1M oflag=direct status=none || return 1
		cmp -n $((4 * MiB)) "$data" "/dev/$rd" || return 1
		rdctl --resize "$rd" 32M >/dev/null || return 1
		cmp -n $((4 * MiB)) "$data" "/dev/$rd" || return 1
		rdctl --flush "$rd" >/dev/null || return 1
		[ "$(rd_allocated "$rd")" = 0 ] || return 1
		cmp -n $((4 * MiB)) /dev/zero "/dev/$rd" || return 1
		rd_remove "$rd" || return 1
	done
	rm -f "$data"
	echo "$i" >"$T/churn-$1"
}

# churn_ioctl NAME ROUNDS: the same through the raw control ioctls, which
# take no lock: these race each other and rdctl in the kernel.
churn_ioctl() {
	local i idx data=$T/data-$1
	head -c $((4 * MiB)) /dev/urandom >"$data"
	for ((i = 0; i < $2; i++)); do
		idx=$(rd-ioctl add size=$((16 * MiB))) || return 1
		dd if="$data" of="/dev/rd$idx" bs=1M oflag=direct status=none || return 1
		rd-ioctl resize index="$idx" size=$((32 * MiB)) >/dev/null || return 1
		cmp -n $((4 * MiB)) "$data" "/dev/rd$idx" || return 1
		rd_ioctl_idle free index="$idx" || return 1
		[ "$(rd_allocated "rd$idx")" = 0 ] || return 1
		cmp -n $((4 * MiB)) /dev/zero "/dev/rd$idx" || return 1
		rd_ioctl_idle remove index="$idx" || return 1
	done
	rm -f "$data"
	echo "$i" >"$T/churn-$1"
}

# unload_tries: modprobe -r rdmirror until the churn is over; each must
# be refused (the RAM member is open). Writes the count to $T/unloads.
unload_tries() {
	local n=0
	while [[ ! -e "$T/churn-done" ]]; do
		if modprobe -r rdmirror 2>/dev/null; then
			echo "modprobe -r rdmirror succeeded with disks in use" >&2
			return 1
		fi
		n=$((n + 1))
		nap 0.5
	done
	[[ -e /sys/module/rdmirror ]] || return 1
	echo "$n" >"$T/unloads"
}

# 4. Churn on other rd disks from four processes, and unload attempts.
churn_step() {
	local rounds=$1 p pids=() n rd
	rd=$(ram_member)
	rm -f "$T"/churn-* "$T/unloads"
	churn_rdctl a "$rounds" 3>&- &
	pids+=($!)
	churn_rdctl b "$rounds" 3>&- &
	pids+=($!)
	churn_ioctl c "$rounds" 3>&- &
	pids+=($!)
	churn_ioctl d "$rounds" 3>&- &
	pids+=($!)
	unload_tries 3>&- &
	p=$!
	for n in "${pids[@]}"; do
		wait "$n"
	done
	touch "$T/churn-done"
	wait "$p"
	for n in a b c d; do
		[ "$(<"$T/churn-$n")" = "$rounds" ]
	done
	n=$(<"$T/unloads")
	echo "churn: 4 x $rounds rounds, modprobe -r refused $n times"
	[ "$n" -ge 1 ]
	REFUSALS=$((REFUSALS + n))
	# only the RAM member is left
	[ "$(find /sys/block -maxdepth 1 -name 'rd*' | wc -l)" = 1 ]
	[ -e "/sys/block/$rd" ]
	io_clean
	mirror_whole
}

# 5. The busy RAM member: rdctl --detach, --flush, --resize smaller, and
# the raw remove, free and shrink ioctls are refused; nothing changes.
refusals_step() {
	local rd idx size alloc n
	rd=$(ram_member)
	idx=${rd#rd}
	size=$(($(<"/sys/block/$rd/size") * 512))
	alloc=$(rd_allocated "$rd")
	n=$(figure records)
	run rdctl --detach "$rd"
	echo "$output"
	[ "$status" = 1 ]
	[[ "$output" == *md0* ]]
	run rdctl --flush "$rd"
	echo "$output"
	[ "$status" = 1 ]
	run rdctl --resize "$rd" "$(((size / 2) & ~4095))B"
	echo "$output"
	[ "$status" = 1 ]
	run rd-ioctl remove index="$idx"
	[ "$output" = EBUSY ]
	run rd-ioctl free index="$idx"
	[ "$output" = EBUSY ]
	run rd-ioctl resize index="$idx" size=$(((size / 2) & ~4095))
	[ "$output" = EBUSY ]
	REFUSALS=$((REFUSALS + 6))
	[ "$(($(<"/sys/block/$rd/size") * 512))" = "$size" ]
	[ "$(rd_allocated "$rd")" = "$alloc" ]
	wait_records $((n + 5))
	io_clean
	mirror_whole
}

# step NAME: a step begins (and the last one ends): its time in $step_times
step() {
	local now
	now=$(date +%s)
	if [[ -n "${STEP_NAME:-}" ]]; then step_times+=("${STEP_NAME%%.*} $((now - STEP_START))"); fi
	STEP_NAME=$1
	STEP_START=$now
	echo "--- $((now - start)) s: $1"
	if [[ "$1" == end ]]; then STEP_NAME=; fi
}

@test "torture: a RAM mirror under a verifying writer and reader through disk, RAM-member, memory, churn and refusal faults" {
	local minutes=${STRESS_MINUTES:-0} start cycle=0 end hold=10 rounds=2 t_cycles t_end
	[[ "$minutes" =~ ^[0-9]+$ ]]
	# the short form (make check): one churn round a process (44 s less)
	if ((minutes == 0)); then rounds=1; fi
	free_before=$(mem_free_kib)
	start=$(date +%s)
	end=$((start + minutes * 60))

	run rdctl --create /dev/md0 "/dev/$H1" "/dev/$H2" --config "$CONF" --wait
	echo "$output"
	[ "$status" = 0 ]
	sed 's/ auto$/ auto prealloc/' "$CONF" >"$CONF_PRE"
	grep -q ' auto prealloc$' "$CONF_PRE"
	wait_in_sync
	mirror_whole

	# the hog, not the suite, is the one the OOM killer should take
	echo -500 >"/proc/$BASHPID/oom_score_adj"
	torture-io verify /dev/md0 "$S" --seed "$RANDOM" 3>&- &
	VERIFIER=$!
	for ((i = 0; i < 120; i++)); do
		if [[ -e "$S/progress" ]]; then break; fi
		nap 0.5
	done
	wait_records 20

	t_cycles=$(date +%s)
	while :; do
		cycle=$((cycle + 1))
		echo "=== cycle $cycle, $(($(date +%s) - start)) s"
		step_times=()
		step "1. a disk fails"
		if ((cycle % 2)); then fault_disk "$H1"; else fault_disk "$H2"; fi
		step "2. the RAM member fails"
		fault_ram "$cycle" "$CONF"
		step "3. memory pressure"
		pressure_step "$hold"
		step "4. churn and unload attempts"
		churn_step "$rounds"
		step "5. refusals"
		refusals_step
		step end
		say "cycle $cycle (s): ${step_times[*]}"
		echo "after cycle $cycle: $(<"$S/progress")"
		(($(date +%s) < end)) || break
	done

	t_end=$(date +%s)
	touch "$S/stop"
	rc=0
	wait "$VERIFIER" || rc=$?
	VERIFIER=
	echo "verifier: exit $rc, $(<"$S/result")"
	written=$(figure written "$S/result")
	verified=$(figure verified "$S/result")
	mismatches=$(figure mismatches "$S/result")
	secs=$(($(date +%s) - start))
	say "torture: $((secs / 60)).$((secs % 60 * 10 / 60)) min, $verified bytes verified, $FAULTS faults injected, $REFUSALS refusals, $mismatches mismatches"
	say "($cycle cycles, $(figure records "$S/result") records, $written bytes written, $(figure rereads "$S/result") bytes read again)"
	[ "$rc" = 0 ]
	[ "$mismatches" = 0 ]
	[ "$(figure errors "$S/result")" = 0 ]
	[ "$written" -gt 0 ]
	[ "$verified" = "$written" ]

	# md's own check: the RAM member and both disks hold the same bytes
	echo check >/sys/block/md0/md/sync_action
	wait_in_sync
	echo "md check: mismatch_cnt $(md_attr mismatch_cnt)"
	[ "$(md_attr mismatch_cnt)" = 0 ]

	rd_cleanup
	[ -z "$(find /sys/block -maxdepth 1 -name 'rd*')" ]
	free_after=$(mem_free_kib)
	echo "MemFree before $free_before KiB, after $free_after KiB"
	say "times: setup $((t_cycles - start)) s, cycles $((t_end - t_cycles)) s, final checks $(($(date +%s) - t_end)) s; MemFree + per-CPU lists before $free_before KiB, after $free_after KiB"
	[ $((free_before - free_after)) -lt 16384 ]
}
