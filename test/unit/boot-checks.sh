# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # out, err, tmp, here, utils, version, build_id: set by run-checks.sh
# rdctl --restore and --release on a fake tree, with a fake mdadm
# (fake-mdadm, run through RDCTL_MDADM) and the fake ioctls (fake_ioctl.so),
# both logging to one file so that the order of what rdctl did can be
# checked. Sourced by
# run-checks.sh: uses its run/pass/fail/expect_*/validate/vg helpers.

saved_env="$RDCTL_SYSFS_ROOT|$RDCTL_PROC_ROOT|$RDCTL_DEV_ROOT"
broot=$tmp/boot
# rdctl runs the fake mdadm through RDCTL_MDADM (run-checks.sh), never from
# PATH; this empty directory is left for blocks that still put it on PATH
bbin=$tmp/boot-bin
mkdir -p "$bbin"
blog=$tmp/boot.log
conf=$tmp/rdmirror.conf
export RDCTL_FAKE_LOG=$blog RDCTL_RESTORE_TIMEOUT=0
export RDCTL_SYSFS_ROOT=$broot/sys RDCTL_PROC_ROOT=$broot/proc RDCTL_DEV_ROOT=$broot/dev
# the array UUID as mdadm prints it, and as md shows it in sysfs (md/uuid)
uuid=79387934:aaaad032:f56c6261:de230a86
sysfs_uuid=79387934-aaaa-d032-f56c-6261de230a86

put() {	# FILE CONTENT
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1"
}
member() {	# ARRAY NAME STATE [SLOT]
	local d=$broot/sys/block/$1/md/dev-$2
	put "$d/state" "$3"
	put "$d/slot" "${4:-1}"
	put "$d/offset" 2048
	put "$d/size" 1048576
	put "$broot/sys/class/block/$2/size" 2101248
}
# md0: raid1, metadata 1.2, 1 GiB components, data offset 1 MiB (auto: 1025 MiB),
# sdb write-mostly, sdc not, the RAM slot (2, the highest) empty (as after a
# release)
boot_tree() {
	rm -rf "$broot"
	local m=$broot/sys/block/md0/md
	put "$m/level" raid1
	put "$m/array_state" clean
	put "$m/raid_disks" 3
	put "$m/degraded" 1
	put "$m/metadata_version" 1.2
	put "$m/component_size" 1048576
	put "$m/sync_action" idle
	put "$m/sync_completed" none
	put "$m/sync_speed" none
	put "$m/fake_uuid" $uuid
	put "$m/uuid" $sysfs_uuid
	member md0 sdb in_sync,write_mostly 0
	member md0 sdc in_sync 1
	put "$broot/sys/module/rdmirror/version" "$build_id"
	put "$broot/proc/meminfo" "MemTotal: 16777216 kB"
	put "$broot/proc/self/mountinfo" "22 1 8:1 / / rw - ext4 /dev/sda1 rw"
	mkdir -p "$broot/dev"
	: >"$broot/dev/rdmirror-control"
	: >"$broot/dev/rd3"
	# (what the kernel gives the disk an ADD makes: rdctl turns its
	# statistics on)
	put "$broot/sys/block/rd3/queue/iostats" 0
	: >"$blog"
}
# an rd member rdN in md0 with STATE; rdN exists in sysfs
rd_member() {	# N STATE
	member md0 "rd$1" "$2" 2
	put "$broot/sys/block/rd$1/size" 2099200
	put "$broot/sys/block/rd$1/dev" "252:$1"
	mkdir -p "$broot/sys/block/rd$1/holders/md0"
}
expect_log() {	# NAME TEXT: the log is exactly TEXT
	if [ "$(cat "$blog")" = "$2" ]; then pass; else fail "$1: log is '$(cat "$blog")', want '$2'"; fi
}
expect_log_lacks() {	# NAME REGEX
	if ! grep -qE -- "$2" "$blog"; then pass; else fail "$1: log has '$2': $(cat "$blog")"; fi
}
state_of() { cat "$broot/sys/block/md0/md/dev-$1/state"; }
# what md does with "writemostly" written to dev-Y/state: the flag shows in state
settle() {
	local f
	for f in "$broot"/sys/block/md0/md/dev-*/state; do
		if [ "$(cat "$f")" = writemostly ]; then put "$f" in_sync,write_mostly; fi
	done
}

# --- restore --dry-run: the plan of each line, nothing done ---
boot_tree
printf 'md0 auto\nmd9 auto\n' >"$conf"
rm -f "$tmp/syslog"
report_before=$(cat "$RDCTL_RUN_DIR/restore.json" 2>/dev/null || echo none)
RDCTL_FAKE_SYSLOG=$tmp/syslog run "restore --dry-run" 0 --restore --dry-run --config "$conf"
expect_out "restore --dry-run" "md0: would attach a 1025 MiB RAM disk and add it to md0 (mdadm --add): md recovers it in full; would make sdc write-mostly
md9: not running: would wait up to 0 s for it (mdadm --assemble --scan half way), then restore it"
expect_log "restore --dry-run: nothing ran" ""
if [ "$(state_of sdc)" = in_sync ]; then pass; else fail "restore --dry-run: sdc was changed: $(state_of sdc)"; fi
if [ ! -e "$tmp/syslog" ]; then pass; else fail "restore --dry-run: journal lines: $(cat "$tmp/syslog")"; fi
if [ "$(cat "$RDCTL_RUN_DIR/restore.json" 2>/dev/null || echo none)" = "$report_before" ]; then pass
else fail "restore --dry-run: the last restore's report (--status) was replaced"; fi
run "restore --dry-run --json" 0 --restore --dry-run --json --config "$conf"
validate "restore --dry-run --json" restore,config_errors
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["restore"]; sys.exit(not (d[0]["action"]=="planned" and d[0]["size"]==1074790400 and d[0]["rd"] is None and d[1]["action"]=="planned"))' "$out"
then pass; else fail "restore --dry-run --json: $(cat "$out")"; fi
run "restore --dry-run --wait" 2 --restore --dry-run --wait --config "$conf"
# a record --release kept is read, not used up (a restore uses it once,
# good or bad: this one is no superblock)
mkdir -p "$tmp/dry-state"
head -c 4096 /dev/zero >"$tmp/dry-state/warm-$uuid.sb"
RDCTL_STATE_DIR=$tmp/dry-state run "restore --dry-run record" 0 --restore --dry-run --config "$conf"
expect_out_has "restore --dry-run record" "md recovers it in full (no warm start (no md version-1 superblock there))"
if [ -e "$tmp/dry-state/warm-$uuid.sb" ]; then pass; else fail "restore --dry-run record: the record was used up"; fi
printf 'md0 auto\n' >"$conf"
RDCTL_STATE_DIR=$tmp/dry-state run "restore record" 0 --restore --config "$conf"
if [ ! -e "$tmp/dry-state/warm-$uuid.sb" ]; then pass; else fail "restore record: the record was not used up"; fi
boot_tree
printf 'md0 auto\nmd9 auto\n' >"$conf"
rd_member 0 in_sync
printf 'md0 auto\n' >"$conf"
run "restore --dry-run already" 0 --restore --dry-run --config "$conf"
expect_out "restore --dry-run already" "md0: already restored (rd0, in sync); would make sdc write-mostly"
expect_log "restore --dry-run already: nothing ran" ""
put "$broot/sys/block/md0/md/dev-rd0/state" faulty
run "restore --dry-run faulty" 0 --restore --dry-run --config "$conf"
expect_out_has "restore --dry-run faulty" "md0: would remove rd0 (faulty) and detach it, then would attach a 1025 MiB RAM disk"
expect_log "restore --dry-run faulty: nothing ran" ""
if [ "$(state_of rd0)" = faulty ]; then pass; else fail "restore --dry-run faulty: rd0 was changed: $(state_of rd0)"; fi
vg "restore --dry-run" 0 --restore --dry-run --config "$conf"

# --- restore: added, by device name, size auto, one member made write-mostly ---
boot_tree
# (no RAM member yet: a release's plan says there is nothing to do)
run "release --dry-run, nothing" 0 --release --dry-run
expect_out "release --dry-run, nothing" "nothing to release: no md array has a RAM member"
printf '# test\n\nmd0   auto   # the array\n' >"$conf"
rm -f "$tmp/syslog"
RDCTL_FAKE_SYSLOG=$tmp/syslog run "restore" 0 --restore --config "$conf"
expect_out "restore" "md0: attached rd3 (1025 MiB), added to md0, sdc write-mostly, recovery started"
if grep -qxF "info attach rd3: 1 GiB (by rdctl --restore --config $conf)" "$tmp/syslog" ||
	grep -qx "info attach rd3: 1[.0-9]* GiB (by rdctl --restore --config $conf)" "$tmp/syslog"; then pass
else fail "restore journal: no attach line: $(cat "$tmp/syslog" 2>/dev/null)"; fi
expect_log "restore log" "ioctl ADD 1074790400 0
mdadm /dev/md0 --add /dev/rd3"
if [ "$(state_of sdc)" = writemostly ]; then pass; else fail "sdc not made write-mostly: $(state_of sdc)"; fi
if [ "$(state_of sdb)" = in_sync,write_mostly ]; then pass; else fail "sdb was changed: $(state_of sdb)"; fi
if [ "$(state_of rd3)" = spare ]; then pass; else fail "RAM member rd3 was changed: $(state_of rd3)"; fi
settle
# a second run changes nothing
: >"$blog"
run "restore again" 0 --restore --config "$conf"
expect_out "restore again" "md0: already restored (rd3, recovery started)"
expect_log_lacks "restore again: no add" "--add|ioctl"
if [ "$(state_of sdc)" = in_sync,write_mostly ]; then pass; else fail "restore again changed sdc: $(state_of sdc)"; fi
put "$broot/sys/block/md0/md/dev-rd3/state" in_sync
put "$broot/sys/block/md0/md/sync_action" idle
run "restore in sync" 0 --restore --config "$conf"
expect_out "restore in sync" "md0: already restored (rd3, in sync)"
run "restore json already" 0 --restore --config "$conf" --json
validate "restore json already" restore,config_errors
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["restore"][0]; sys.exit(not (d["action"]=="already" and d["rd"]=="rd3" and d["uuid"]==sys.argv[2] and d["error"] is None))' "$out" "$uuid"
then pass; else fail "restore json already: $(cat "$out")"; fi
vg "restore already" 0 --restore --config "$conf" --json

# --- an existing RAM member not write-mostly is left alone, a disk is fixed ---
boot_tree
rd_member 0 in_sync
run "restore fixes wm" 0 --restore --config "$conf"
expect_out "restore fixes wm" "md0: already restored (rd0, in sync), sdc made write-mostly"
expect_log_lacks "restore fixes wm: RAM untouched" "rd0"
if [ "$(state_of rd0)" = "in_sync" ]; then pass; else fail "rd0 was changed: $(state_of rd0)"; fi
if [ "$(state_of sdc)" = writemostly ]; then pass; else fail "sdc not made write-mostly: $(state_of sdc)"; fi

# --- a warm-up that died while md recovered its member, which is in sync
# since: --restore clears its state and puts md's sync speeds back ---
boot_tree
rd_member 0 in_sync
put "$broot/sys/block/md0/md/sync_speed_min" "100000 (local)"
put "$broot/sys/block/md0/md/sync_speed_max" "4000000 (local)"
# (a kernel with sync_io_depth, 6.16+: the warm-up raised it too)
put "$broot/sys/block/md0/md/sync_io_depth" "128 (local)"
# (pid 1 of the fake /proc is no rdctl: the daemon is dead)
printf 'pid 1\nrd rd0\ndone 1\ntotal 1\nstarted 1\nphase recover\nspeed_min_was system\nspeed_max_was 5000\nio_depth_was system\n' \
	>"$RDCTL_RUN_DIR/warmup-md0.state"
run "restore --dry-run dead warm-up" 0 --restore --dry-run --config "$conf"
expect_out "restore --dry-run dead warm-up" "md0: would clear the state of a warm-up that died, already restored (rd0, in sync); would make sdc write-mostly"
if [ -e "$RDCTL_RUN_DIR/warmup-md0.state" ] && [ "$(cat "$broot/sys/block/md0/md/sync_speed_min")" = "100000 (local)" ]
then pass; else fail "restore --dry-run dead warm-up: the state or the speeds changed"; fi
run "restore dead warm-up" 0 --restore --config "$conf"
expect_out "restore dead warm-up" "md0: already restored (rd0, in sync), sdc made write-mostly"
if [ ! -e "$RDCTL_RUN_DIR/warmup-md0.state" ]; then pass; else fail "restore dead warm-up: the state file stayed"; fi
if [ "$(cat "$broot/sys/block/md0/md/sync_speed_min")" = system ] &&
	[ "$(cat "$broot/sys/block/md0/md/sync_speed_max")" = 5000 ]; then pass
else fail "restore dead warm-up: speeds not put back: $(cat "$broot"/sys/block/md0/md/sync_speed_{min,max})"; fi
if [ "$(cat "$broot/sys/block/md0/md/sync_io_depth")" = system ]; then pass
else fail "restore dead warm-up: sync_io_depth not put back: $(cat "$broot/sys/block/md0/md/sync_io_depth")"; fi

# --- by UUID, prealloc, JSON, --wait (sync done at once) ---
boot_tree
printf 'UUID=%s 2G prealloc\n' "$(echo $uuid | tr a-f A-F)" >"$conf"
FAKE_MDADM_SYNC="done" run "restore uuid" 0 --restore --wait --config "$conf" --json
validate "restore uuid" restore,config_errors
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["restore"][0]; sys.exit(not (d["action"]=="added" and d["array"]=="md0" and d["size"]==2<<30 and d["write_mostly_set"]==["sdc"]))' "$out"
then pass; else fail "restore uuid json: $(cat "$out")"; fi
if grep -qx "ioctl ADD 2147483648 1" "$blog"; then pass; else fail "restore uuid: no preallocated 2 GiB attach: $(cat "$blog")"; fi

# --- an inactive array, only the RAM member missing: mdadm --run first ---
# (as the kernel shows an array that incremental assembly holds but has not
# started: no raid_disks in sysfs; the superblocks still say 3)
boot_tree
put "$broot/sys/block/md0/md/array_state" inactive
cp "$broot/sys/block/md0/md/raid_disks" "$broot/sys/block/md0/md/fake_raid_disks"
put "$broot/sys/block/md0/md/raid_disks" ""
printf 'md0 auto\n' >"$conf"
run "restore inactive" 0 --restore --config "$conf"
expect_out "restore inactive" "md0: started (only the RAM member was missing), attached rd3 (1025 MiB), added to md0, sdc write-mostly, recovery started"
# mdadm --run is the first call that changes anything (queries may come before)
if grep -v -- '--examine --export\|--detail --export' "$blog" | head -1 | grep -qx "mdadm --run /dev/md0"
then pass; else fail "restore inactive: log $(cat "$blog")"; fi

# --- inactive with a disk missing too: started only at the end of the wait ---
boot_tree
put "$broot/sys/block/md0/md/array_state" inactive
cp "$broot/sys/block/md0/md/raid_disks" "$broot/sys/block/md0/md/fake_raid_disks"
put "$broot/sys/block/md0/md/raid_disks" ""
rm -rf "$broot/sys/block/md0/md/dev-sdc"
run "restore degraded" 0 --restore --config "$conf"
expect_out "restore degraded" "md0: started degraded after 0 s: 2 members missing, attached rd3 (1025 MiB), added to md0, recovery started"
boot_tree
put "$broot/sys/block/md0/md/array_state" inactive
rm -rf "$broot/sys/block/md0/md/dev-sdc"
vg "restore degraded" 0 --restore --config "$conf" --json
run "status degraded" 3 --status
expect_out_has "status degraded" "md0 has only one persistent member"

# --- an empty configuration: nothing to do, exit 0 ---
printf '# nothing yet\n' >"$tmp/empty.conf"
run "restore empty" 0 --restore --config "$tmp/empty.conf"
expect_out "restore empty" "no mirror configured in $tmp/empty.conf"

# --- auto-read-only: made writable so that the recovery starts ---
boot_tree
put "$broot/sys/block/md0/md/array_state" read-auto
run "restore read-auto" 0 --restore --config "$conf"
if grep -qx "mdadm --readwrite /dev/md0" "$blog"; then pass; else fail "restore read-auto: log $(cat "$blog")"; fi

# --- /dev/md/NAME, and an array that must be assembled first ---
boot_tree
mv "$broot/sys/block/md0" "$broot/sys/block/.pending-md0"
mkdir -p "$broot/dev/md"
ln -s ../md0 "$broot/dev/md/data"
printf '/dev/md/data 1025M\n' >"$conf"
run "restore assemble" 0 --restore --config "$conf"
expect_out "restore assemble" "md0: attached rd3 (1025 MiB), added to md0, sdc write-mostly, recovery started"
if head -1 "$blog" | grep -qx "mdadm --assemble --scan /dev/md/data"; then pass; else fail "restore assemble: log $(cat "$blog")"; fi
mv "$broot/sys/block/md0" "$broot/sys/block/.pending-md0"
rm -rf "$broot/sys/block/.pending-md0/md/dev-rd3"
vg "restore assemble" 0 --restore --config "$conf"

# --- bad lines and a missing array: the good lines are still done, exit 1 ---
boot_tree
printf 'md0 auto\nmd9 auto\nbogus auto\nmd0 2G\nmd1 7x\n' >"$conf"
run "restore partial" 1 --restore --config "$conf"
expect_out "restore partial" "md0: attached rd3 (1025 MiB), added to md0, sdc write-mostly, recovery started"
for want in "rdctl: $conf:3: invalid array 'bogus'" "rdctl: $conf:4: md0 is already configured on line 1" \
	"rdctl: $conf:5: invalid size '7x'" "rdctl: md9: md9 not found within 0 s"; do
	if grep -qF -- "$want" "$err"; then pass; else fail "restore partial: stderr lacks '$want': $(cat "$err")"; fi
done
run "restore partial json" 1 --restore --config "$conf" --json
validate "restore partial json" restore,config_errors
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not ([e["line"] for e in d["config_errors"]]==[3,4,5] and d["restore"][1]["action"]=="failed" and d["restore"][1]["error"]["code"]=="ENODEV"))' "$out"
then pass; else fail "restore partial json: $(cat "$out")"; fi
vg "restore partial" 1 --restore --config "$conf" --json

# --- a configured size below what the array needs; mdadm --add failing ---
boot_tree
printf 'md0 1G\n' >"$conf"
run "restore too small" 1 --restore --config "$conf"
expect_err "restore too small" "md0: the configured size 1024 MiB is smaller than the 1025 MiB a member of md0 needs: use auto"
expect_log_lacks "restore too small: no attach" "ioctl"
printf 'md0 auto\n' >"$conf"
FAKE_MDADM_FAIL=add run "restore add fails" 1 --restore --config "$conf"
expect_err_has "restore add fails" "md0: mdadm $broot/dev/md0 --add $broot/dev/rd3 failed (exit 1): mdadm: fake failure of add"
if tail -1 "$blog" | grep -qx "ioctl REMOVE 3 0"; then pass; else fail "restore add fails: rd3 not detached: $(cat "$blog")"; fi
RDCTL_FAKE_IOCTL_ERRNO=ENOMEM run "restore ENOMEM" 1 --restore --config "$conf" --json
validate "restore ENOMEM" restore,config_errors
FAKE_MDADM_FAIL=add vg "restore add fails" 1 --restore --config "$conf"

# --- /dev/rdN does not appear: the disk is detached again ---
boot_tree
rm "$broot/dev/rd3"
run "restore no node" 1 --restore --config "$conf"
expect_err_has "restore no node" "md0: $broot/dev/rd3 did not appear within 3 s"
if tail -1 "$blog" | grep -qx "ioctl REMOVE 3 0"; then pass; else fail "restore no node: rd3 not detached: $(cat "$blog")"; fi

# --- a faulty RAM member is removed and detached, then a fresh disk added ---
boot_tree
rd_member 0 faulty
run "restore faulty" 0 --restore --config "$conf"
expect_log "restore faulty log" "mdadm /dev/md0 --remove /dev/rd0
ioctl REMOVE 0 0
ioctl ADD 1074790400 0
mdadm /dev/md0 --add /dev/rd3"
boot_tree
rd_member 0 faulty
vg "restore faulty" 0 --restore --config "$conf" --json
# --- a RAM member md kept after a failed write (bad blocks) is replaced ---
boot_tree
rd_member 0 in_sync,write_error,want_replacement
run "restore write_error" 0 --restore --config "$conf"
expect_log "restore write_error log" "mdadm /dev/md0 --fail /dev/rd0 --remove /dev/rd0
ioctl REMOVE 0 0
ioctl ADD 1074790400 0
mdadm /dev/md0 --add /dev/rd3"

# --- release: fail + remove through mdadm, then the detach ioctl ---
boot_tree
rd_member 0 in_sync
run "release" 0 --release
expect_out "release" "md0: released rd0 (failed, removed, detached)"
expect_log "release log" "mdadm /dev/md0 --fail /dev/rd0 --remove /dev/rd0
ioctl REMOVE 0 0"
run "release nothing" 0 --release --json
validate "release nothing" release
boot_tree
rd_member 0 in_sync
run "release json" 0 --release --json
validate "release json" release
boot_tree
rd_member 0 in_sync
put "$broot/sys/block/md0/md/dev-sdb/state" spare
put "$broot/sys/block/md0/md/dev-sdc/state" faulty
run "release unsafe" 1 --release
expect_err_has "release unsafe" "md0: not releasing rd0: no persistent member of md0 is in sync"
expect_log "release unsafe log" ""
boot_tree
rd_member 0 in_sync
FAKE_MDADM_FAIL=fail run "release fail" 1 --release --json
validate "release fail json" release
expect_log_lacks "release fail: no detach" "ioctl"
boot_tree
rd_member 0 in_sync
vg "release" 0 --release --json
# --- release ARRAY... and --dry-run (#34): md1, a second mirror beside md0 ---
second_mirror() {
	local m1=$broot/sys/block/md1/md
	mkdir -p "$m1"
	for f in level array_state raid_disks degraded metadata_version component_size sync_action \
		sync_completed sync_speed; do
		cp "$broot/sys/block/md0/md/$f" "$m1/$f"
	done
	put "$m1/uuid" 11111111-2222-3333-4444-555555555555
	member md1 sdd in_sync,write_mostly 0
	member md1 sde in_sync,write_mostly 1
	member md1 rd1 in_sync 2
	put "$broot/sys/block/rd1/size" 2099200
	put "$broot/sys/block/rd1/dev" "252:1"
	mkdir -p "$broot/sys/block/rd1/holders/md1"
	: >"$broot/dev/rd1"
}
boot_tree
rd_member 0 in_sync
second_mirror
rm -f "$tmp/syslog"
RDCTL_FAKE_SYSLOG=$tmp/syslog run "release --dry-run" 0 --release --dry-run
if [ ! -e "$tmp/syslog" ]; then pass; else fail "release --dry-run: journal lines: $(cat "$tmp/syslog")"; fi
expect_out_has "release --dry-run: md0" "md0: would release rd0: mdadm $broot/dev/md0 --fail $broot/dev/rd0 --remove $broot/dev/rd0; "
expect_out_has "release --dry-run: md1" "md1: would release rd1: mdadm $broot/dev/md1 --fail $broot/dev/rd1 --remove $broot/dev/rd1; "
expect_log "release --dry-run: nothing ran" ""
run "release --dry-run one" 0 --release /dev/md1 --dry-run --json
validate "release --dry-run one" release
expect_out_lacks "release --dry-run one: not md0" '"md0"'
expect_log "release --dry-run one: nothing ran" ""
RDCTL_FAKE_SYSLOG=$tmp/syslog run "release one" 0 --release md1
expect_out "release one" "md1: released rd1 (failed, removed, detached)"
# the change in the journal (lib/journal.h)
# (the array's change, then the RAM disk's, each with the command that asked)
if [ "$(cat "$tmp/syslog" 2>/dev/null)" = "info mdadm $broot/dev/md1 --fail $broot/dev/rd1 --remove $broot/dev/rd1 (by rdctl --release md1)
info detach rd1 (by rdctl --release md1)" ]; then pass
else fail "release one: journal is '$(cat "$tmp/syslog" 2>/dev/null)'"; fi
expect_log "release one: md1 only" "mdadm /dev/md1 --fail /dev/rd1 --remove /dev/rd1
ioctl REMOVE 1 0"
: >"$blog"
run "release by UUID" 0 --release UUID=$uuid --dry-run
expect_out_has "release by UUID" "md0: would release rd0"
run "release by UUID, upper case" 0 --release "UUID=${uuid^^}" --dry-run
expect_out_has "release by UUID, upper case" "md0: would release rd0"
run "release: an unknown UUID" 1 --release UUID=00000000:00000000:00000000:00000001
expect_err "release: an unknown UUID" "no array with UUID=00000000:00000000:00000000:00000001: see mdadm --detail --scan"
run "release: a bad UUID" 2 --release UUID=1234
expect_err_has "release: a bad UUID" "invalid UUID '1234'"
run "release: no such array" 1 --release md7
expect_err "release: no such array" "no array md7: see cat /proc/mdstat"
boot_tree
run "release: no RAM member" 1 --release md0
expect_err "release: no RAM member" "md0 has no RAM member to release"
run "release: not an array" 2 --release sdb
expect_log "release refusals: nothing ran" ""

# --- #20: the RAM member's slot, memory, bad blocks, the restore record ---
# a mirror of the old layout (RAM slot 0, disks in 1 and 2): the restore
# shrinks raid-devices (md packs the disks into slots 0 and 1), then the
# RAM member comes back in the highest slot
boot_tree
put "$broot/sys/block/md0/md/dev-sdb/slot" 1
put "$broot/sys/block/md0/md/dev-sdc/slot" 2
echo "md0 auto" >"$conf"
run "restore old layout" 0 --restore --config "$conf"
expect_out "restore old layout" "md0: disks moved below the RAM slot, attached rd3 (1025 MiB), added to md0 in a new slot, sdc write-mostly, recovery started"
expect_log "restore old layout log" "mdadm --grow /dev/md0 --raid-devices=2
ioctl ADD 1074790400 0
mdadm /dev/md0 --add /dev/rd3
mdadm --grow /dev/md0 --raid-devices=3"
if [ "$(cat "$broot/sys/block/md0/md/dev-rd3/slot") $(cat "$broot/sys/block/md0/md/dev-sdb/slot") $(cat "$broot/sys/block/md0/md/dev-sdc/slot")" = "2 0 1" ]
then pass; else fail "restore old layout: slots rd3 sdb sdc: $(cat "$broot"/sys/block/md0/md/dev-{rd3,sdb,sdc}/slot | tr '\n' ' ')"; fi
# md refuses to reshape (a sync runs): the member goes into the free slot, with a warning
boot_tree
put "$broot/sys/block/md0/md/dev-sdb/slot" 1
put "$broot/sys/block/md0/md/dev-sdc/slot" 2
FAKE_MDADM_FAIL=grow run "restore old layout busy" 0 --restore --config "$conf"
expect_err_has "restore old layout busy" "cannot move the disks below the RAM slot"
if [ "$(cat "$broot/sys/block/md0/md/dev-rd3/slot")" = 0 ]; then pass; else fail "restore old layout busy: rd3 slot $(cat "$broot/sys/block/md0/md/dev-rd3/slot")"; fi

# no slot free (a --convert stopped before its grow): add, then grow
boot_tree
put "$broot/sys/block/md0/md/raid_disks" 2
put "$broot/sys/block/md0/md/degraded" 0
run "restore no free slot" 0 --restore --config "$conf"
expect_log "restore no free slot log" "ioctl ADD 1074790400 0
mdadm /dev/md0 --add /dev/rd3
mdadm --grow /dev/md0 --raid-devices=3"
if [ "$(cat "$broot/sys/block/md0/md/dev-rd3/slot")" = 2 ]; then pass; else fail "restore no free slot: rd3 slot $(cat "$broot/sys/block/md0/md/dev-rd3/slot")"; fi
# a RAM spare with no slot free (the --convert stopped after its add): grow
boot_tree
put "$broot/sys/block/md0/md/raid_disks" 2
rd_member 0 spare
put "$broot/sys/block/md0/md/dev-rd0/slot" none
run "restore spare no slot" 0 --restore --config "$conf"
expect_log "restore spare no slot log" "mdadm --grow /dev/md0 --raid-devices=3"
expect_out "restore spare no slot" "md0: grown into the RAM slot (rd0, recovery started), sdc made write-mostly"

# a member that does not fit: not attached, refused, recorded
boot_tree
put "$broot/proc/meminfo" "MemTotal: 2097152 kB
MemAvailable: 1048576 kB"
run "restore too big" 1 --restore --config "$conf"
expect_err_has "restore too big" "md0: not restored: a 1025 MiB RAM member does not fit in memory (1024 MiB available, 0 MiB still to fill in other rd disks, 256 MiB kept in reserve by default); md0 runs from its disks"
expect_log "restore too big: nothing attached" ""
if grep -q '"action": "refused"' "$RDCTL_RUN_DIR/restore.json" && grep -q '"spec": "md0"' "$RDCTL_RUN_DIR/restore.json" &&
	grep -q '"time": ' "$RDCTL_RUN_DIR/restore.json"; then pass; else fail "restore too big: restore.json: $(cat "$RDCTL_RUN_DIR/restore.json")"; fi
run "restore too big json" 1 --restore --config "$conf" --json
validate "restore too big json" restore,config_errors
# it fits with a smaller reserve; a reserve in percent of MemTotal
printf 'reserve 0\nmd0 auto\n' >"$conf"
put "$broot/proc/meminfo" "MemTotal: 2097152 kB
MemAvailable: 1050624 kB"
run "restore reserve 0" 0 --restore --config "$conf"
boot_tree
put "$broot/proc/meminfo" "MemTotal: 16777216 kB
MemAvailable: 2097152 kB"
printf 'reserve 95%%\nmd0 auto\n' >"$conf"
run "restore reserve bad" 1 --restore --config "$conf"
expect_err_has "restore reserve bad" "invalid reserve '95%': expected a whole percentage from 0 to 90"
boot_tree
put "$broot/proc/meminfo" "MemTotal: 16777216 kB
MemAvailable: 2097152 kB"
printf 'reserve 90%%\nmd0 auto\n' >"$conf"
run "restore reserve 90%" 1 --restore --config "$conf"
expect_err_has "restore reserve 90%" "14745 MiB kept in reserve)"
printf 'reserve 1M\nreserve 2M\nmd0 auto\n' >"$conf"
run "restore reserve twice" 1 --restore --config "$conf"
expect_err_has "restore reserve twice" ":2: reserve is set already on line 1"
# --force goes ahead
printf 'reserve 90%%\nmd0 auto\n' >"$conf"
run "restore reserve force" 0 --restore --config "$conf" --ignore-memory
echo "md0 auto" >"$conf"

# --status: an mdadm.conf whose num-devices= is not the array's count
boot_tree
rd_member 0 in_sync
put "$broot/sys/block/md0/md/degraded" 0
put "$broot/sys/block/md0/md/dev-sdc/state" in_sync,write_mostly
printf 'DEVICE partitions\nARRAY /dev/md0 level=raid1 num-devices=2 UUID=%s\n' "$uuid" >"$RDCTL_MDADM_CONF"
run "status mdadm.conf count" 3 --status --config "$conf"
expect_out_has "status mdadm.conf count" "says num-devices=2 for md0, which has 3: mdadm --assemble --scan refuses it at the next boot"
printf 'ARRAY /dev/md0 UUID=%s\n' "$uuid" >"$RDCTL_MDADM_CONF"
run "status mdadm.conf no count" 0 --status --config "$conf"
printf 'ARRAY /dev/md0 UUID=%s\nARRAY /dev/md/x UUID=%s\n' "$uuid" "$uuid" >"$RDCTL_MDADM_CONF"
run "status mdadm.conf twice" 3 --status --config "$conf"
expect_out_has "status mdadm.conf twice" "has 2 ARRAY lines for md0"
: >"$RDCTL_MDADM_CONF"

# bad blocks that every disk has recorded: the RAM member holds the only copy
boot_tree
rd_member 0 in_sync
put "$broot/sys/block/md0/md/dev-sdb/bad_blocks" "20480 8"
run "release bad blocks on one disk" 0 --release
boot_tree
rd_member 0 in_sync
put "$broot/sys/block/md0/md/dev-sdb/bad_blocks" "20480 8
40960 16"
put "$broot/sys/block/md0/md/dev-sdc/bad_blocks" "20484 8"
run "release bad blocks on both" 1 --release
expect_err_has "release bad blocks on both" "md0: not releasing rd0: every disk of md0 has recorded bad blocks at sectors 20484+4 (4 sectors in all, md's bad_blocks): rd0 holds the only good copy of them"
expect_log "release bad blocks on both: nothing ran" ""
run "revert bad blocks on both" 1 --revert /dev/md0 --config "$conf"
expect_err_has "revert bad blocks on both" "not reverting /dev/md0: every disk has recorded bad blocks at sectors 20484+4"
expect_log "revert bad blocks on both: nothing ran" ""
run "refresh bad blocks on both" 1 --refresh /dev/md0 --config "$conf"
expect_err_has "refresh bad blocks on both" "not refreshing /dev/md0: every disk has recorded bad blocks at sectors 20484+4"
# unacknowledged ones count too
put "$broot/sys/block/md0/md/dev-sdc/bad_blocks" ""
put "$broot/sys/block/md0/md/dev-sdc/unacknowledged_bad_blocks" "40960 8"
run "release unacknowledged bad blocks" 1 --release
expect_err_has "release unacknowledged bad blocks" "bad blocks at sectors 40960+8"

# --refresh: out, empty, back in the highest slot
boot_tree
rd_member 0 in_sync
put "$broot/sys/block/md0/md/dev-sdb/state" in_sync,write_mostly
put "$broot/sys/block/md0/md/dev-sdc/state" in_sync,write_mostly
put "$broot/sys/block/md0/md/degraded" 0
run "refresh" 0 --refresh /dev/md0 --config "$conf"
expect_log "refresh log" "mdadm /dev/md0 --fail /dev/rd0 --remove /dev/rd0
ioctl REMOVE 0 0
ioctl ADD 1074790400 0
mdadm /dev/md0 --add /dev/rd3"
expect_out_has "refresh summary" "Refreshed md0: rd3 (1025 MiB) added empty, recovery"
# the old layout: RAM in slot 0, moved on top
boot_tree
rd_member 0 in_sync
put "$broot/sys/block/md0/md/dev-rd0/slot" 0
put "$broot/sys/block/md0/md/dev-sdb/slot" 1
put "$broot/sys/block/md0/md/dev-sdc/slot" 2
run "refresh old layout" 0 --refresh /dev/md0 --config "$conf" --json
validate "refresh old layout" refresh
expect_log "refresh old layout log" "mdadm /dev/md0 --fail /dev/rd0 --remove /dev/rd0
ioctl REMOVE 0 0
mdadm --grow /dev/md0 --raid-devices=2
ioctl ADD 1074790400 0
mdadm /dev/md0 --add /dev/rd3
mdadm --grow /dev/md0 --raid-devices=3"
if [ "$(cat "$broot/sys/block/md0/md/dev-rd3/slot")" = 2 ]; then pass; else fail "refresh old layout: rd3 slot $(cat "$broot/sys/block/md0/md/dev-rd3/slot")"; fi
# --dry-run: the plan, nothing done
boot_tree
rd_member 0 in_sync
put "$broot/sys/block/md0/md/dev-rd0/slot" 0
put "$broot/sys/block/md0/md/dev-sdb/slot" 1
put "$broot/sys/block/md0/md/dev-sdc/slot" 2
run "refresh dry run" 0 --refresh /dev/md0 --dry-run
expect_log "refresh dry run: nothing ran" ""
expect_out_has "refresh dry run: the grow" "mdadm --grow $broot/dev/md0 --raid-devices=2"
expect_out_has "refresh dry run: the add" "mdadm $broot/dev/md0 --add $broot/dev/rdN"
if [ "$(state_of rd0)" = in_sync ]; then pass; else fail "refresh dry run changed rd0: $(state_of rd0)"; fi
boot_tree
run "refresh no RAM member" 1 --refresh /dev/md0
expect_err "refresh no RAM member" "/dev/md0 has no working RAM member to refresh: rdctl --restore adds one"
boot_tree
rd_member 0 in_sync
put "$broot/sys/block/md0/md/dev-sdb/state" spare
put "$broot/sys/block/md0/md/dev-sdc/state" faulty
run "refresh only copy" 1 --refresh /dev/md0
expect_err_has "refresh only copy" "sdb of /dev/md0 is not in sync yet"
boot_tree
rd_member 0 in_sync
vg "refresh" 0 --refresh /dev/md0 --config "$conf"

# --- --wait: returns when the recovery has finished ---
boot_tree
printf 'md0 auto\n' >"$conf"
( sleep 1.5; put "$broot/sys/block/md0/md/dev-rd3/state" in_sync; put "$broot/sys/block/md0/md/sync_action" idle ) &
start=$SECONDS
run "restore wait" 0 --restore --wait --config "$conf"
wait
if [ $((SECONDS - start)) -ge 1 ]; then pass; else fail "restore --wait did not wait"; fi
expect_out "restore wait" "md0: attached rd3 (1025 MiB), added to md0, sdc write-mostly, recovery started"
boot_tree
( sleep 1.5; rm -rf "$broot/sys/block/md0/md/dev-rd3" ) &
run "restore wait lost" 1 --restore --wait --config "$conf"
wait
expect_err "restore wait lost" "md0: rd3 left md0 during the recovery: see dmesg"
# md's "faulty,blocked" while it records bad blocks of a member it keeps
# (not yet acknowledged): not a member that left; the wait goes on. (Set
# once the add has made the member: the wait reads it at least once in
# the 1.5 s. --timeout: a wait that misreads the state fails, not hangs.)
# (also lock-checks.sh's; up to 15 s: a loaded host)
once_added() {
	for _ in $(seq 300); do
		[ -s "$broot/sys/block/md0/md/dev-rd3/slot" ] && return 0
		sleep 0.05
	done
	return 1
}
boot_tree
( once_added && put "$broot/sys/block/md0/md/dev-rd3/state" "faulty,blocked,spare,write_error" &&
	sleep 1.5 && put "$broot/sys/block/md0/md/dev-rd3/state" in_sync,write_error &&
	put "$broot/sys/block/md0/md/sync_action" idle ) &
run "restore wait unacked bad blocks" 0 --restore --wait --timeout 20 --config "$conf"
wait
expect_out "restore wait unacked bad blocks" "md0: attached rd3 (1025 MiB), added to md0, sdc write-mostly, recovery started"
# a member md failed: "faulty" without "in_sync" or "spare", reported at
# once (raid1_error() sets Blocked with Faulty; md's next superblock
# update clears it, which this fake never does: a wait for that would end
# in the timeout, not in "left")
boot_tree
( once_added && put "$broot/sys/block/md0/md/dev-rd3/state" "faulty,blocked,write_error" ) &
run "restore wait failed member" 1 --restore --wait --timeout 20 --config "$conf"
wait
expect_err "restore wait failed member" "md0: rd3 left md0 during the recovery: see dmesg"

# --- rdmirror-boot: start restores, stop releases ---
boot_sh=$utils/../scripts/rdmirror-boot
boot_tree
if RDCTL=$rdctl RDMIRROR_CONF=$conf LD_PRELOAD=$shim sh "$boot_sh" start >"$out" 2>"$err"; then pass
else fail "rdmirror-boot start: $(cat "$err")"; fi
expect_out "rdmirror-boot start" "md0: attached rd3 (1025 MiB), added to md0, sdc write-mostly, recovery started"
: >"$blog"
if RDCTL=$rdctl LD_PRELOAD=$shim sh "$boot_sh" stop >"$out" 2>"$err"; then pass
else fail "rdmirror-boot stop: $(cat "$err")"; fi
expect_log "rdmirror-boot stop log" "mdadm /dev/md0 --fail /dev/rd3 --remove /dev/rd3
ioctl REMOVE 3 0"
if RDCTL=$rdctl RDMIRROR_CONF=$tmp/none sh "$boot_sh" start >"$out" 2>"$err"; then pass
else fail "rdmirror-boot start without config: $(cat "$err")"; fi
if RDCTL=$rdctl sh "$boot_sh" frob >"$out" 2>"$err"; then fail "rdmirror-boot frob succeeded"
elif [ $? -eq 2 ]; then pass; else fail "rdmirror-boot frob: not exit 2"; fi

# --- the systemd units parse (with this rdctl, without the man page lookup) ---
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$tmp/units"
	for u in rdmirror-restore.service rdmirror-release.service; do
		sed -e "s|/usr/sbin/rdctl|$rdctl|" -e '/^Documentation=/d' "$utils/../scripts/$u" >"$tmp/units/$u"
	done
	for u in rdmirror-restore.service rdmirror-release.service; do
		if (cd "$tmp/units" && systemd-analyze verify "$u") >"$tmp/sa.out" 2>&1; then pass
		else fail "systemd-analyze verify $u: $(cat "$tmp/sa.out")"; fi
	done
	# a failed restore shows as a failed unit, and the release does not
	# depend on it: ExecStart without "-", the release in a unit of its own
	if grep -qx 'ExecStart=/usr/sbin/rdctl --restore' "$utils/../scripts/rdmirror-restore.service" &&
		! grep -q '^ExecStop=' "$utils/../scripts/rdmirror-restore.service" &&
		grep -qx 'Wants=rdmirror-release.service' "$utils/../scripts/rdmirror-restore.service" &&
		grep -qx 'ExecStop=/usr/sbin/rdctl --release' "$utils/../scripts/rdmirror-release.service"
	then pass; else fail "units: a failed restore must fail rdmirror-restore.service, the release run apart"; fi
fi

IFS='|' read -r RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT <<<"$saved_env"
export RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT
unset RDCTL_FAKE_LOG RDCTL_RESTORE_TIMEOUT

# --- shell scripts: shellcheck ---
if command -v shellcheck >/dev/null; then
	for f in "$here/fake-mdadm" "$here/boot-checks.sh" "$here/mirror-checks.sh" "$here/lock-checks.sh" \
		"$utils/../scripts/rdmirror-boot"; do
		if shellcheck "$f" >"$tmp/sc.out" 2>&1; then pass; else fail "shellcheck $f: $(cat "$tmp/sc.out")"; fi
	done
else
	fail "shellcheck is not installed (apt-get install shellcheck)"
fi
