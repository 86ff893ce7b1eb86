# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # out, err, tmp, here, rdctl, shim, broot, blog, conf, uuid: set by run-checks.sh and boot-checks.sh
# What a command that changes things does first, and the bounds on what it
# waits for: the root check (as a real unprivileged uid, 65534), the lock
# on RDCTL_RUN_DIR/rdmirror.lock, mdadm from the system directories and
# its time bound, the sysfs UUID (no mdadm run to find an array by UUID),
# and the bound of --wait. Sourced by run-checks.sh after mirror-checks.sh,
# whose tree builders (boot_tree, rd_member, put) it uses.

saved_env="$RDCTL_SYSFS_ROOT|$RDCTL_PROC_ROOT|$RDCTL_DEV_ROOT"
export RDCTL_FAKE_LOG=$blog RDCTL_RESTORE_TIMEOUT=0 RDCTL_MDADM_CONF=$tmp/mdadm.conf
export RDCTL_SYSFS_ROOT=$broot/sys RDCTL_PROC_ROOT=$broot/proc RDCTL_DEV_ROOT=$broot/dev
lock=$RDCTL_RUN_DIR/rdmirror.lock

# as_nobody NAME EXIT ARGS...: run rdctl as uid/gid 65534 with no groups
# (a real unprivileged user, not a stand-in for geteuid)
as_nobody() {
	local name=$1 want=$2 got
	shift 2
	if [ "$(id -u)" -eq 0 ]; then
		LD_PRELOAD=$shim setpriv --reuid=65534 --regid=65534 --clear-groups "$rdctl" "$@" >"$out" 2>"$err"
	else
		LD_PRELOAD=$shim "$rdctl" "$@" >"$out" 2>"$err"
	fi
	got=$?
	if [ "$got" -eq "$want" ]; then pass; else fail "$name: exit $got, want $want (rdctl $*): $(cat "$err")"; fi
}
# bounded NAME EXIT SECONDS ARGS...: run, killed after SECONDS (the old code
# waited for ever); *elapsed* is how long it took
bounded() {
	local name=$1 want=$2 limit=$3 got start=${EPOCHREALTIME/./}
	shift 3
	LD_PRELOAD=$shim timeout -k 2 "$limit" "$rdctl" "$@" >"$out" 2>"$err"
	got=$?
	elapsed=$((${EPOCHREALTIME/./} - start))	# microseconds
	if [ "$got" -eq "$want" ]; then pass; else fail "$name: exit $got, want $want (rdctl $*): $(cat "$err")"; fi
}
expect_faster() {	# NAME SECONDS: the last bounded run took less
	if [ "$elapsed" -lt $(($2 * 1000000)) ]; then pass; else fail "$1: took $elapsed us, want < $2 s"; fi
}
expect_slower() {	# NAME SECONDS: the last bounded run took at least
	if [ "$elapsed" -ge $(($2 * 1000000)) ]; then pass; else fail "$1: took $elapsed us, want >= $2 s"; fi
}
# the test tree readable by uid 65534 (mktemp -d made it 0700)
chmod 0755 "$tmp"

# --- root: every changing command refuses at once, before touching anything ---
boot_tree
rd_member 0 in_sync
printf 'UUID=%s auto\n' "$uuid" >"$conf"
: >"$broot/dev/sdz"
for c in "--attach 512" "--detach rd0" "--resize rd0 4G" "--flush rd0" "--restore --config $conf" \
	"--release" "--create /dev/md1 $broot/dev/sdz" "--convert md0" "--revert md0"; do
	read -ra args <<<"$c"
	: >"$blog"
	as_nobody "nobody $c" 1 "${args[@]}"
	expect_no_out "nobody $c"
	expect_err_has "nobody $c" "${args[0]} needs root"
	expect_log "nobody $c: nothing run" ""
done
as_nobody "nobody restore text" 1 --restore --config "$conf"
expect_err "nobody restore text" "--restore needs root (run it with sudo)"
as_nobody "nobody create dry-run text" 1 --create /dev/md1 "$broot/dev/sdz" --dry-run
expect_err "nobody create dry-run text" "--create --dry-run needs root: it opens the disks to check that they are blank (run it with sudo)"
as_nobody "nobody json" 1 --attach 512 --json
expect_code "nobody json" EPERM
# what only reads works without root; so does the plan of --convert and --revert
as_nobody "nobody list" 0 --list
as_nobody "nobody version" 0 --version
boot_tree
put "$broot/sys/block/md0/md/raid_disks" 2
put "$broot/sys/block/md0/md/degraded" 0
member md0 sdb in_sync 0
member md0 sdc in_sync 1
put "$broot/proc/meminfo" "MemTotal: 16777216 kB
MemAvailable: 4194304 kB"
as_nobody "nobody convert dry-run" 0 --convert md0 --config "$conf" --dry-run
expect_out_has "nobody convert dry-run: the plan" "mdadm --grow $broot/dev/md0 --raid-devices=3"
expect_out_has "nobody convert dry-run: the UUID from sysfs" "# add to $conf: UUID=$uuid auto"
expect_log "nobody convert dry-run: no mdadm run" ""
if [ ! -e "$lock" ] || [ "$(stat -c %u "$lock")" -eq 0 ]; then pass; else fail "nobody made $lock"; fi

# --- the lock: created 0600, names its holder ---------------------------------
rm -f "$lock"
boot_tree
run "lock attach" 0 --attach 512 --ignore-memory
if [ "$(stat -c %a "$lock" 2>/dev/null)" = 600 ]; then pass; else fail "lock: $lock is not 0600: $(stat -c %a "$lock" 2>&1)"; fi
if grep -qxE "[0-9]+ rdctl --attach 512 --ignore-memory" "$lock"; then pass; else fail "lock: holder not recorded: '$(cat "$lock")'"; fi

# a second rdctl waits for the first (held while its mdadm runs), then goes on
boot_tree
rd_member 0 in_sync
FAKE_MDADM_SLEEP=2 LD_PRELOAD=$shim "$rdctl" --release >"$tmp/holder.out" 2>&1 &
holder=$!
for _ in $(seq 50); do grep -q "^$holder " "$lock" 2>/dev/null && break; sleep 0.1; done
bounded "lock wait" 0 30 --attach 512 --ignore-memory
wait "$holder"
expect_slower "lock wait: waited" 1
expect_out "lock wait" "Attached device rd3 of size 512 MiB"
if [ "$(cat "$err")" = "rdctl: waiting for the lock on $lock held by PID $holder (rdctl --release)" ]
then pass; else fail "lock wait: stderr '$(cat "$err")'"; fi
if [ "$(tail -1 "$blog")" = "ioctl ADD 536870912 0" ]; then pass; else fail "lock wait: attach not after the release: $(cat "$blog")"; fi

# ... and gives up after the bound, changing nothing
boot_tree
rd_member 0 in_sync
FAKE_MDADM_SLEEP=4 LD_PRELOAD=$shim "$rdctl" --release >"$tmp/holder.out" 2>&1 &
holder=$!
for _ in $(seq 50); do grep -q "^$holder " "$lock" 2>/dev/null && break; sleep 0.1; done
RDCTL_LOCK_TIMEOUT=1 bounded "lock timeout" 1 30 --restore --config "$conf" --json
expect_code "lock timeout" EBUSY
if grep -qxF "rdctl: $lock is still held by PID $holder (rdctl --release) after 1 s: another rdctl is changing the disks or arrays; try again when it has finished" "$err"
then pass; else fail "lock timeout: stderr '$(cat "$err")'"; fi
expect_faster "lock timeout: bounded" 3
if ! grep -q "ioctl ADD" "$blog"; then pass; else fail "lock timeout: something was attached: $(cat "$blog")"; fi
# what only reads, and a dry run, do not wait
RDCTL_LOCK_TIMEOUT=1 bounded "lock: list does not wait" 0 30 --list
expect_err_lacks "lock: list does not wait" "waiting for the lock"
RDCTL_LOCK_TIMEOUT=1 bounded "lock: dry run does not wait" 0 30 --revert md0 --dry-run --config "$conf"
expect_err_lacks "lock: dry run does not wait" "waiting for the lock"
wait "$holder"

# held by another program (flock(1)): said so, not a stale PID
boot_tree
flock "$lock" sleep 3 &
holder=$!
sleep 0.3
RDCTL_LOCK_TIMEOUT=1 bounded "lock other" 1 30 --attach 512 --ignore-memory
if grep -qxF "rdctl: waiting for the lock on $lock held by another process (fuser -v $lock names it)" "$err"
then pass; else fail "lock other: stderr '$(cat "$err")'"; fi
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# --- mdadm: from the system directories, never the caller's PATH first ---------
boot_tree
rd_member 0 in_sync
mkdir -p "$tmp/path-bin"
printf '#!/bin/sh\ntouch %s/path-mdadm-ran\nexec "%s" "$@"\n' "$tmp" "$here/fake-mdadm" >"$tmp/path-bin/mdadm"
chmod +x "$tmp/path-bin/mdadm"
rm -f "$tmp/path-mdadm-ran"
# without RDCTL_MDADM: /usr/sbin/mdadm (or none) on paths under $broot, which
# are no block devices: it fails, but the one on PATH must not run
PATH="$tmp/path-bin:$PATH" RDCTL_MDADM='' bounded "mdadm not from PATH" 1 60 --release
if [ ! -e "$tmp/path-mdadm-ran" ]; then pass; else fail "rdctl ran mdadm from PATH"; fi

# --- mdadm that hangs: stopped after the bound, the error says so -------------
for hang in term ignore-term; do
	boot_tree
	rd_member 0 in_sync
	rm -f "$tmp/hang.pid"
	FAKE_MDADM_HANG=$hang FAKE_MDADM_PIDFILE=$tmp/hang.pid RDCTL_MDADM_TIMEOUT=1 \
		bounded "mdadm hangs ($hang)" 1 30 --release
	expect_err_has "mdadm hangs ($hang)" "md0: mdadm $broot/dev/md0 --fail $broot/dev/rd0 --remove $broot/dev/rd0 did not finish in 1 s"
	expect_faster "mdadm hangs ($hang): bounded" 6
	if [ -s "$tmp/hang.pid" ] && ! kill -0 "$(cat "$tmp/hang.pid")" 2>/dev/null; then pass
	else fail "mdadm hangs ($hang): the fake mdadm was not stopped"; kill "$(cat "$tmp/hang.pid")" 2>/dev/null; fi
	if ! grep -q "ioctl REMOVE" "$blog"; then pass; else fail "mdadm hangs ($hang): rd0 detached anyway"; fi
done
# the JSON says which: ETIMEDOUT, not the EIO of an mdadm that refused
boot_tree
rd_member 0 in_sync
FAKE_MDADM_HANG=term RDCTL_MDADM_TIMEOUT=1 bounded "mdadm hangs: json" 1 30 --release --json
if python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["release"][0]["error"]["code"] != "ETIMEDOUT")' "$out"
then pass; else fail "mdadm hangs: json: $(cat "$out")"; fi

# --- finding an array by UUID: /sys/block/mdX/md/uuid, no mdadm run -------------
boot_tree
printf 'UUID=%s auto\n' "$(echo "$uuid" | tr a-f A-F)" >"$conf"
run "uuid from sysfs" 0 --restore --config "$conf"
expect_out "uuid from sysfs" "md0: attached rd3 (1025 MiB), added to md0, sdc write-mostly, recovery started"
expect_log "uuid from sysfs: no mdadm query" "ioctl ADD 1074790400 0
mdadm /dev/md0 --add /dev/rd3"
# an array that is not running shows a zero UUID: mdadm is asked
boot_tree
put "$broot/sys/block/md0/md/uuid" 00000000-0000-0000-0000-000000000000
run "uuid zero: mdadm asked" 0 --restore --config "$conf"
if head -1 "$blog" | grep -qx "mdadm --detail --export /dev/md0"; then pass; else fail "uuid zero: log $(cat "$blog")"; fi
# metadata 0.90: md shows each 4-byte group of the UUID reversed, mdadm
# does not; md's form is not used, mdadm is asked
boot_tree
put "$broot/sys/block/md0/md/metadata_version" 0.90
put "$broot/sys/block/md0/md/uuid" 34793879-32d0-aaaa-6162-6cf5860a23de
run "uuid 0.90: mdadm asked" 0 --restore --config "$conf"
if head -1 "$blog" | grep -qx "mdadm --detail --export /dev/md0"; then pass; else fail "uuid 0.90: log $(cat "$blog")"; fi
# another array's UUID in sysfs: not taken for this one
boot_tree
put "$broot/sys/block/md0/md/uuid" 79387934-aaaa-d032-f56c-6261de230a87
run "uuid other" 1 --restore --config "$conf"
expect_err_has "uuid other" "not found within 0 s"
expect_log_lacks "uuid other: nothing added" "ADD|--add"

# --- --wait gives up after the bound, saying how far the sync got -------------
boot_tree
printf 'md0 auto\n' >"$conf"
# (md's progress put once the add has made rd3 (boot-checks.sh's
# once_added): the fake mdadm's add sets it to "none", and a fixed delay
# lost that race on a loaded host)
( once_added && put "$broot/sys/block/md0/md/sync_completed" "1048576 / 2097152" ) &
bounded "restore wait bound" 1 15 --restore --wait --timeout 2 --config "$conf" --json
wait
validate "restore wait bound" restore,config_errors
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["restore"][0]; sys.exit(not (d["action"]=="failed" and d["rd"]=="rd3" and d["error"]["code"]=="ETIMEDOUT"))' "$out"
then pass; else fail "restore wait bound json: $(cat "$out")"; fi
expect_err_has "restore wait bound" "md0: rd3 is not in sync after 2 s: recovery at 50.0%"
expect_faster "restore wait bound: bounded" 5
raid1_tree
( once_added && put "$broot/sys/block/md0/md/sync_completed" "524288 / 2097152" ) &
bounded "convert wait bound" 1 15 --convert md0 --config "$conf" --wait --timeout 2
wait
expect_err_has "convert wait bound" "rd3 is not in sync after 2 s: recovery at 25.0%"
boot_tree
printf 'md0 auto\n' >"$conf"
bounded "restore --timeout" 1 15 --restore --wait --timeout 1 --config "$conf"
expect_err_has "restore --timeout" "md0: rd3 is not in sync after 1 s"
expect_faster "restore --timeout: bounded" 4
# without --timeout, --wait waits as long as the sync takes (stopped by
# timeout(1) here, exit 124)
boot_tree
printf 'md0 auto\n' >"$conf"
bounded "wait without --timeout" 124 3 --restore --wait --config "$conf"
expect_slower "wait without --timeout: waited" 3
# ... but not for a recovery md never runs: sync_action back to idle,
# rd3 still out of sync (the stall bound, 60 s, 2 s here)
boot_tree
printf 'md0 auto\n' >"$conf"
( once_added && put "$broot/sys/block/md0/md/sync_action" idle ) &
RDCTL_TEST_STALL_SECONDS=2 bounded "wait on a stalled recovery" 1 15 --restore --wait --config "$conf"
wait
expect_err_has "wait on a stalled recovery" "md0: md has left rd3 out of sync in md0 for 2 s with no recovery running (sync_action idle, array_state clean)"
expect_faster "wait on a stalled recovery: bounded" 6
# frozen the same; a recovery that runs meanwhile starts the bound again:
# the wait ends 2 s after the second freeze, not at once
boot_tree
printf 'md0 auto\n' >"$conf"
( once_added && put "$broot/sys/block/md0/md/sync_action" frozen && sleep 1.5 &&
	put "$broot/sys/block/md0/md/sync_action" recover && sleep 3 &&
	put "$broot/sys/block/md0/md/sync_action" frozen && echo "${EPOCHREALTIME/./}" >"$tmp/refrozen" ) &
RDCTL_TEST_STALL_SECONDS=2 bounded "wait on a frozen recovery" 1 15 --restore --wait --config "$conf"
ended=${EPOCHREALTIME/./}
wait
expect_err_has "wait on a frozen recovery" "for 2 s with no recovery running (sync_action frozen,"
if [ $((ended - $(cat "$tmp/refrozen"))) -ge 1500000 ]; then pass
else fail "wait on a frozen recovery: ended $((ended - $(cat "$tmp/refrozen"))) us after the second freeze, want >= 1.5 s"; fi

# --- the lock is let go before the wait for a sync: others need not wait ------
boot_tree
printf 'md0 auto\n' >"$conf"
: >"$blog"
LD_PRELOAD=$shim "$rdctl" --restore --wait --timeout 5 --config "$conf" >"$tmp/waiter.out" 2>&1 &
waiter=$!
# the restore has added rd3 and now waits for md's recovery
for _ in $(seq 50); do grep -q -- '--add' "$blog" && break; sleep 0.1; done
sleep 0.5
RDCTL_LOCK_TIMEOUT=1 bounded "lock free during --wait" 0 30 --attach 512 --ignore-memory
# rdctl says so the first time it finds the lock held: no timing, which a
# loaded host stretches past any bound
expect_err_lacks "lock free during --wait: no wait for the lock" "waiting for the lock"
if kill -0 "$waiter" 2>/dev/null; then pass; else fail "lock free during --wait: the restore was not waiting any more"; fi
wait "$waiter" 2>/dev/null

IFS='|' read -r RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT <<<"$saved_env"
export RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT
unset RDCTL_FAKE_LOG RDCTL_RESTORE_TIMEOUT RDCTL_MDADM_CONF
