# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # out, err, tmp, here, utils, rdctl: set by run-checks.sh
# rdctl --create, --convert, --revert on the fake tree with the fake mdadm:
# the steps in their order (the log), each refusal with its message, the
# undo of a step that fails, --dry-run, the configuration edits, and the
# known-md-bug refusal. Sourced by run-checks.sh after boot-checks.sh,
# whose tree builders (boot_tree, member, rd_member, put) it uses.

saved_env="$RDCTL_SYSFS_ROOT|$RDCTL_PROC_ROOT|$RDCTL_DEV_ROOT"
export RDCTL_FAKE_LOG=$blog RDCTL_MDADM_CONF=$tmp/mdadm.conf
export RDCTL_SYSFS_ROOT=$broot/sys RDCTL_PROC_ROOT=$broot/proc RDCTL_DEV_ROOT=$broot/dev
conf_text='# kept byte for byte
/dev/md/other   2G	# another mirror'
: >"$RDCTL_MDADM_CONF"

# md0: an in-sync two-disk RAID1 (sdb, sdc), no RAM member, 4 GiB available
raid1_tree() {
	boot_tree
	put "$broot/sys/block/md0/md/raid_disks" 2
	put "$broot/sys/block/md0/md/degraded" 0
	member md0 sdb in_sync 0
	member md0 sdc in_sync 1
	put "$broot/proc/meminfo" "MemTotal: 16777216 kB
MemAvailable: 4194304 kB"
	printf '%s\n' "$conf_text" >"$conf"
}
md_put() { put "$broot/sys/block/md0/md/$1" "$2"; }
expect_conf() {	# NAME TEXT: the config file is exactly TEXT
	if [ "$(cat "$conf")" = "$2" ]; then pass; else fail "$1: config is '$(cat "$conf")', want '$2'"; fi
}
expect_state() {	# NAME MEMBER STATE
	if [ "$(state_of "$2")" = "$3" ]; then pass; else fail "$1: $2 is '$(state_of "$2")', want '$3'"; fi
}

# --- convert: a bitmap for the warm start, the grow (the RAM slot empty),
# the warm start, which cannot read the fake disks' superblocks: the RAM
# disk added into the empty slot instead, md recovers it
raid1_tree
rm -f "$tmp/syslog"
RDCTL_FAKE_SYSLOG=$tmp/syslog run "convert" 0 --convert /dev/md0 --config "$conf"
journal_has() {	# NAME LINE: the journal (lib/journal.h) has LINE
	if grep -qxF -- "$2" "$tmp/syslog" 2>/dev/null; then pass
	else fail "$1: journal lacks '$2': $(cat "$tmp/syslog" 2>/dev/null)"; fi
}
# each line ends with the command that asked (lib/journal.h)
by=" (by rdctl --convert /dev/md0 --config $conf)"
journal_has "convert journal: bitmap" "info mdadm --grow $broot/dev/md0 --bitmap=internal --bitmap-chunk=128M$by"
journal_has "convert journal: grow" "info mdadm --grow $broot/dev/md0 --raid-devices=3 --force$by"
journal_has "convert journal: add" "info mdadm $broot/dev/md0 --add $broot/dev/rd3$by"
journal_has "convert journal: write-mostly" "info echo writemostly > $broot/sys/block/md0/md/dev-sdb/state$by"
journal_has "convert journal: config" "info add to $conf: UUID=$uuid auto$by"
# the RAM disk's own change, as a step of convert
if grep -qx "info attach rd3: [0-9.]* [KMGT]\?i\?B$by" "$tmp/syslog"; then pass
else fail "convert journal: no attach line: $(cat "$tmp/syslog")"; fi
if ! grep -q -- "--detail\|--examine" "$tmp/syslog"; then pass; else fail "convert journal: a reading command journaled: $(cat "$tmp/syslog")"; fi
expect_log "convert log" "ioctl ADD 1074790400 0
mdadm --grow /dev/md0 --bitmap=internal --bitmap-chunk=128M
mdadm --grow /dev/md0 --raid-devices=3 --force
mdadm /dev/md0 --add /dev/rd3
mdadm --detail --brief /dev/md0"
expect_out_has "convert prints the bitmap" "mdadm --grow $broot/dev/md0 --bitmap=internal --bitmap-chunk=128M"
expect_out_has "convert prints the warm start" "# warm start: copy /dev/md0 into rd3, then mdadm --re-add it"
expect_out_has "convert prints the add" "mdadm $broot/dev/md0 --add $broot/dev/rd3"
expect_out_has "convert prints the grow" "mdadm --grow $broot/dev/md0 --raid-devices=3"
err_line() {	# NAME TEXT: a line of stderr holds TEXT
	if grep -qF -- "$2" "$err"; then pass; else fail "$1: stderr '$(cat "$err")' lacks '$2'"; fi
}
err_line "convert: the bitmap said" "rdctl: warning: an internal write-intent bitmap added to md0"
err_line "convert: why no warm start" "rdctl: warning: no warm start (cannot open $broot/dev/sdb: No such file or directory): md recovers rd3 in full"
expect_out_has "convert prints write-mostly" "echo writemostly > $broot/sys/block/md0/md/dev-sdb/state"
expect_out_has "convert summary" "Converted md0: rd3 (1025 MiB) added, recovery"
expect_state "convert: sdb write-mostly" sdb writemostly
expect_state "convert: sdc write-mostly" sdc writemostly
expect_state "convert: rd3 a spare md recovers" rd3 spare
expect_conf "convert config" "$conf_text
UUID=$uuid auto"
err_line "convert: mdadm.conf hint" "rdctl: warning: md0 is not in mdadm.conf"
err_line "convert: the mdadm.conf line" "ARRAY /dev/md0 metadata=1.2 UUID=$uuid"

# --- where no bitmap can be added: the RAM disk joins as a spare, then md
# grows into it (md recovers it in full)
raid1_tree
FAKE_MDADM_FAIL=bitmap run "convert no bitmap" 0 --convert /dev/md0 --config "$conf"
expect_log "convert no bitmap: log" "ioctl ADD 1074790400 0
mdadm --grow /dev/md0 --bitmap=internal --bitmap-chunk=128M
mdadm /dev/md0 --add /dev/rd3
mdadm --grow /dev/md0 --raid-devices=3
mdadm --detail --brief /dev/md0"
err_line "convert no bitmap: said" "no internal bitmap could be added to md0"
expect_state "convert no bitmap: rd3 a spare md recovers" rd3 spare
# an array with its bitmap: none added
raid1_tree
md_put bitmap/location +8
run "convert with a bitmap" 0 --convert /dev/md0 --config "$conf"
expect_log_lacks "convert with a bitmap: none added" "--bitmap="

# --- convert turns md's write-behind off: with it, md acknowledges a write
# once the RAM member has it, before the disks do
raid1_tree
md_put bitmap/backlog 256
run "convert write-behind" 0 --convert /dev/md0 --config "$conf"
expect_out_has "convert write-behind: prints the write" "echo 0 > $broot/sys/block/md0/md/bitmap/backlog"
if [ "$(cat "$broot/sys/block/md0/md/bitmap/backlog")" = 0 ]; then pass; else fail "convert write-behind: backlog is $(cat "$broot/sys/block/md0/md/bitmap/backlog")"; fi
if grep -qF "rdctl: warning: write-behind turned off (it was up to 256 writes)" "$err"; then pass; else fail "convert write-behind: stderr: $(cat "$err")"; fi
raid1_tree
md_put bitmap/backlog 0
run "convert no write-behind" 0 --convert /dev/md0 --config "$conf"
expect_out_lacks "convert no write-behind: no write" "bitmap/backlog"

# the same with the array in mdadm.conf, --prealloc, a size, JSON
raid1_tree
echo "ARRAY /dev/md0 metadata=1.2 UUID=$uuid" >"$RDCTL_MDADM_CONF"
run "convert json" 0 --convert md0 --config "$conf" --size 2G --prealloc --json
validate "convert json" convert
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["convert"]
sys.exit(not (d["rd"]=="rd3" and d["size"]==2<<30 and d["preallocated"] and d["mdadm_conf"]["listed"] is True
	and d["config"]["changed"] and d["config"]["line"]=="UUID=%s 2048M prealloc" % sys.argv[2]
	and [s["status"] for s in d["steps"]]==["done"]*4 + ["failed"] + ["done"]*3
	and d["steps"][0]["command"].startswith("# add to ") and d["steps"][4]["command"].startswith("# warm start")
	and d["write_mostly_changed"]==["sdb","sdc"]))' "$out" "$uuid"
then pass; else fail "convert json: $(cat "$out")"; fi
: >"$RDCTL_MDADM_CONF"
raid1_tree
vg "convert" 0 --convert /dev/md0 --config "$conf"

# --- convert refusals: each with its message, nothing changed ---------------
refuse_convert() {	# NAME MESSAGE [ARGS...]: refused, exit 1, nothing logged but reads
	local name=$1 msg=$2
	shift 2
	: >"$blog"
	run "$name" 1 --convert /dev/md0 --config "$conf" "$@"
	expect_err "$name" "$msg"
	expect_log_lacks "$name: nothing changed" "ADD|--add|--grow|REMOVE"
	expect_conf "$name: config unchanged" "$conf_text"
}
raid1_tree; md_put level raid5
refuse_convert "convert raid5" "/dev/md0 is raid5, not raid1: rdmirror mirrors only RAID1"
raid1_tree; md_put degraded 1
refuse_convert "convert degraded" "/dev/md0 is degraded (1 member missing): repair it before adding a RAM member"
raid1_tree; md_put sync_action resync
refuse_convert "convert resync" "/dev/md0 is busy with a resync: wait until it ends (mdadm --wait $broot/dev/md0)"
raid1_tree; rd_member 0 in_sync
refuse_convert "convert has rd" "/dev/md0 has a RAM member already (rd0, active): see rdctl --status"
raid1_tree; member md0 sdd spare -1
refuse_convert "convert spare" "/dev/md0 has a spare sdd: md would put it, not the RAM disk, into the new slot; remove it first (mdadm $broot/dev/md0 --remove /dev/sdd)"
raid1_tree; put "$broot/sys/block/md0/md/dev-sdc/state" faulty
refuse_convert "convert faulty" "/dev/md0 has a failed member sdc: replace or remove it first (mdadm $broot/dev/md0 --remove /dev/sdc)"
raid1_tree; put "$broot/sys/block/md0/md/dev-sdc/state" in_sync,write_error,want_replacement
refuse_convert "convert want_replacement" "sdc of /dev/md0 wants a replacement (md saw write errors on it): md would make the RAM disk its replacement and fail the disk; replace it first (mdadm $broot/dev/md0 --replace /dev/sdc --with DISK) or, if the errors are understood, clear the flag (echo -want_replacement > $broot/sys/block/md0/md/dev-sdc/state)"
rd_member 0 in_sync
run "status want_replacement" 3 --status
expect_out_has "status want_replacement" "persistent member sdc had write errors and wants a replacement"
raid1_tree
refuse_convert "convert size small" "--size 1024 MiB is smaller than the 1025 MiB a member of /dev/md0 needs: use --size auto" --size 1G
refuse_convert "convert memory" "the RAM member needs 8192 MiB, more than the available memory (4096 MiB): use a smaller size, or --ignore-memory" --size 8G
md_put array_state inactive
refuse_convert "convert inactive" "/dev/md0 is not running (state inactive): start it first (mdadm --run $broot/dev/md0)"
raid1_tree
RDCTL_KERNEL_RELEASE=6.10.3-amd64 refuse_convert "convert md bug" "refusing --convert on this kernel: md/raid1 in Linux 6.9 to 6.10.6 and 6.11-rc1 to rc3 can read the RAM member's unrecovered part during its recovery (data corruption, fixed by c916ca35308d in 6.10.7 and 6.11); upgrade the kernel, or give --ignore-kernel-bug to run anyway"
RDCTL_KERNEL_RELEASE=6.10.3-amd64 run "convert md bug forced" 0 --convert /dev/md0 --config "$conf" --ignore-kernel-bug
run "convert no array" 1 --convert /dev/md5
expect_err "convert no array" "no array /dev/md5: see cat /proc/mdstat"

# --- a step that fails is undone, and the message says the state ------------
raid1_tree
FAKE_MDADM_FAIL="bitmap grow" run "convert grow fails" 1 --convert /dev/md0 --config "$conf"
expect_log "convert grow fails: undone" "ioctl ADD 1074790400 0
mdadm --grow /dev/md0 --bitmap=internal --bitmap-chunk=128M
mdadm /dev/md0 --add /dev/rd3
mdadm --grow /dev/md0 --raid-devices=3
mdadm /dev/md0 --remove /dev/rd3
ioctl REMOVE 3 0"
expect_err_has "convert grow fails: why" "mdadm --grow $broot/dev/md0 --raid-devices=3 failed (exit 1): mdadm: fake failure of grow"
expect_err_has "convert grow fails: state" "md0 should be as it was: check mdadm --detail"
expect_out_has "convert grow fails: undo shown" "undo: mdadm $broot/dev/md0 --remove $broot/dev/rd3"
expect_state "convert grow fails: sdc untouched" sdc in_sync
expect_conf "convert grow fails: config unchanged" "$conf_text"
# the grow that would leave the RAM slot empty fails: the disk detached
raid1_tree
md_put bitmap/location +8
FAKE_MDADM_FAIL=grow run "convert empty-slot grow fails" 1 --convert /dev/md0 --config "$conf"
expect_log "convert empty-slot grow fails: undone" "ioctl ADD 1074790400 0
mdadm --grow /dev/md0 --raid-devices=3 --force
ioctl REMOVE 3 0"
expect_err_has "convert empty-slot grow fails: state" "md0 should be as it was: check mdadm --detail"
expect_conf "convert empty-slot grow fails: config unchanged" "$conf_text"
raid1_tree
FAKE_MDADM_FAIL="bitmap add" run "convert add fails" 1 --convert /dev/md0 --config "$conf" --json
expect_code "convert add fails" EIO
expect_log "convert add fails: detached" "ioctl ADD 1074790400 0
mdadm --grow /dev/md0 --bitmap=internal --bitmap-chunk=128M
mdadm /dev/md0 --add /dev/rd3
ioctl REMOVE 3 0"
# the add after the warm start could not be used, into the empty slot
raid1_tree
FAKE_MDADM_FAIL=add run "convert add into the empty slot fails" 1 --convert /dev/md0 --config "$conf"
expect_log "convert add into the empty slot fails: detached" "ioctl ADD 1074790400 0
mdadm --grow /dev/md0 --bitmap=internal --bitmap-chunk=128M
mdadm --grow /dev/md0 --raid-devices=3 --force
mdadm /dev/md0 --add /dev/rd3
ioctl REMOVE 3 0"
err_line "convert add into the empty slot fails: state" "md0 runs from its disks with its RAM slot empty: rdctl --restore fills it"
raid1_tree
RDCTL_FAKE_IOCTL_ERRNO=ENOMEM run "convert attach fails" 1 --convert /dev/md0 --config "$conf"
expect_err "convert attach fails" "not enough memory for a 1025 MiB RAM disk; md0 is unchanged"

raid1_tree
run "convert config unwritable" 1 --convert /dev/md0 --config "$tmp/no-such-dir/rdmirror.conf"
expect_err_has "convert config unwritable" "cannot open directory $tmp/no-such-dir: No such file or directory; md0 is unchanged"
expect_log "convert config unwritable: nothing ran" ""

# --- dry run: reads only, the plan printed ----------------------------------
raid1_tree
run "convert dry" 0 --convert /dev/md0 --config "$conf" --dry-run
expect_log "convert dry: reads only" ""
expect_out_has "convert dry header" "dry run: the plan for md0 (nothing is changed"
expect_out_has "convert dry attach" "  rdctl --attach 1025M"
expect_out_has "convert dry bitmap" "  mdadm --grow $broot/dev/md0 --bitmap=internal --bitmap-chunk=128M"
expect_out_has "convert dry warm start" "  # warm start: copy /dev/md0 into the RAM disk, then mdadm --re-add it"
expect_out_has "convert dry conf" "  # add to $conf: UUID=$uuid auto"
expect_state "convert dry: sdc unchanged" sdc in_sync
expect_conf "convert dry: config unchanged" "$conf_text"
# without --config, every verb reads the file the tests' build is given
# ($RDCTL_CONFIG, lib/config.h's config_path()), never the host's
RDCTL_CONFIG=$conf run "convert dry, config seam" 0 --convert /dev/md0 --dry-run
expect_out_has "convert dry, config seam" "  # add to $conf: UUID=$uuid auto"

# md0 converted: rd0 in sync in the top slot, the disks write-mostly, its line in $conf
ram_mirror_tree() {
	raid1_tree
	member md0 sdb in_sync,write_mostly 1
	member md0 sdc in_sync,write_mostly 2
	rd_member 0 in_sync
	md_put raid_disks 3
	printf '%s\nUUID=%s auto\n' "$conf_text" "$uuid" >"$conf"
}

# --- convert again: an array with its RAM member, in the configuration -----
# finished as --restore does (here: already whole), and nothing more
ram_mirror_tree
: >"$blog"
run "convert again" 0 --convert /dev/md0 --config "$conf"
expect_out_has "convert again" "finishing an interrupted --convert as rdctl --restore does"
expect_out_has "convert again: restored" "md0: already restored (rd0, "
expect_log_lacks "convert again: nothing attached or grown" "ADD|--add|--grow"

# --- revert: fail and remove, shrink, detach, write-mostly off, line gone ----
ram_mirror_tree
rm -f "$tmp/syslog"
RDCTL_FAKE_SYSLOG=$tmp/syslog run "revert" 0 --revert /dev/md0 --config "$conf"
journal_has "revert journal: detach" "info detach rd0 (by rdctl --revert /dev/md0 --config $conf)"
expect_log "revert log" "mdadm /dev/md0 --fail /dev/rd0 --remove /dev/rd0
mdadm --grow /dev/md0 --raid-devices=2
ioctl REMOVE 0 0"
expect_state "revert: sdb balanced" sdb -writemostly
expect_state "revert: sdc balanced" sdc -writemostly
expect_conf "revert config" "$conf_text"
expect_out_has "revert summary" "Reverted md0: rd0 removed and detached; sdb sdc read-balanced again; removed from $conf"

# refusals: no RAM member; a disk still recovering; no disk in sync
raid1_tree
run "revert no rd" 1 --revert /dev/md0 --config "$conf"
expect_err "revert no rd" "/dev/md0 has no RAM member: nothing to revert"
rd_member 0 in_sync
member md0 sdc spare 2
md_put sync_action recover
: >"$blog"
run "revert disk recovering" 1 --revert /dev/md0 --config "$conf"
expect_err "revert disk recovering" "sdc of /dev/md0 is not in sync yet (spare): until it is, only the RAM member holds all the data; wait (mdadm --wait $broot/dev/md0) and try again"
expect_log_lacks "revert disk recovering: nothing changed" "--fail|REMOVE"
put "$broot/sys/block/md0/md/dev-sdb/state" faulty
put "$broot/sys/block/md0/md/dev-sdc/state" faulty
run "revert RAM only" 1 --revert /dev/md0 --config "$conf"
expect_err_has "revert RAM only" "has no persistent member in sync: its data is only in RAM, and reverting would lose it"
expect_log_lacks "revert RAM only: nothing changed" "--fail|REMOVE"

# --- create: what can be refused before any disk is touched -----------------
: >"$broot/dev/sdz"
run "create not blockdev" 1 --create /dev/md1 "$broot/dev/sdz" --config "$conf"
expect_err "create not blockdev" "$broot/dev/sdz is not a block device: give a whole disk or a partition, for example /dev/sdb"
run "create no disk" 1 --create /dev/md1 "$broot/dev/nothing"
expect_err "create no disk" "cannot use $broot/dev/nothing: No such file or directory"
run "create exists" 1 --create /dev/md0 "$broot/dev/sdz"
expect_err "create exists" "/dev/md0 exists already: rdctl --convert /dev/md0 gives a running RAID1 a RAM member"
RDCTL_KERNEL_RELEASE=6.9.12 run "create md bug" 1 --create /dev/md1 "$broot/dev/sdz"
expect_err_has "create md bug" "refusing --create on this kernel: md/raid1 in Linux 6.9 to 6.10.6"
# --force overrides the blank-disk check only: not the kernel's (#34)
RDCTL_KERNEL_RELEASE=6.9.12 run "create md bug, --force" 1 --create /dev/md1 "$broot/dev/sdz" --force
expect_err_has "create md bug, --force" "refusing --create on this kernel: md/raid1 in Linux 6.9 to 6.10.6"

# --- the known md bug: refused by restore, warned by status, by version -----
for v in 6.9.0 6.9.12-amd64 6.10.0-rc5 6.10.6 6.11.0-rc1 6.11.0-rc3 \
	6.6.136 6.6.140-amd64 6.14.2 6.14.11 6.15.0-rc1 6.15.0 6.15.2 6.15.3 6.15.6-arch1 6.16.0-rc1 6.16.0-rc5; do
	RDCTL_KERNEL_RELEASE=$v run "md bug $v: restore refuses" 1 --restore --config "$conf"
	expect_err_has "md bug $v: restore refuses" "refusing --restore on this kernel"
	RDCTL_KERNEL_RELEASE=$v run "md bug $v: status" 3 --status
	expect_out_has "md bug $v: status warns" "this kernel has a known md bug"
done
RDCTL_KERNEL_RELEASE=6.15.4 run "md bug 6.15.4: status" 3 --status
expect_out_has "md bug 6.15.4: the lost NOWAIT write" "counts a member's refused non-blocking (NOWAIT) write as done"
RDCTL_KERNEL_RELEASE=6.15.1 run "md bug 6.15.1: status" 3 --status
expect_out_has "md bug 6.15.1: the NOWAIT write error" "takes a member's refused non-blocking (NOWAIT) write for a write error"
# Debian's kernels: uname -r has the ABI number, /proc/version the
# upstream stable release (kernel_bugs.h)
printf 'Linux version 6.10.0-1-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.10.6-1~bpo12+1 (2024-08-26)\n' >"$broot/proc/version"
RDCTL_KERNEL_RELEASE=6.10.0-1-amd64 run "md bug, Debian 6.10.6: restore refuses" 1 --restore --config "$conf"
expect_err_has "md bug, Debian 6.10.6: restore refuses" "refusing --restore on this kernel: md/raid1 in Linux 6.9 to 6.10.6"
printf 'Linux version 6.10.0-2-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.10.7-1~bpo12+1 (2024-09-01)\n' >"$broot/proc/version"
RDCTL_KERNEL_RELEASE=6.10.0-2-amd64 run "no md bug, Debian 6.10.7" 3 --status
if grep -q "known md bug\|kernel_md_bug_unknown\|does not say which upstream" "$out"; then fail "no md bug, Debian 6.10.7: $(cat "$out")"; else pass; fi
rm -f "$broot/proc/version"
# a distribution's X.Y.0 with its own backports: unknown, said, not refused
RDCTL_KERNEL_RELEASE=6.12.0-55.el10.x86_64 run "md bug unknown: status" 3 --status
expect_out_has "md bug unknown: status" "kernel 6.12.0-55.el10.x86_64 does not say which upstream stable release it carries"
expect_out_has "md bug unknown: the commits" "look in its changelog for c916ca35308d, 5fa31c499281 and 93dec51e716d"
RDCTL_KERNEL_RELEASE=6.12.0-55.el10.x86_64 run "md bug unknown: json" 3 --status --json
validate "md bug unknown: json" module,memory,disks,arrays,mirrors,warnings,status
for v in 6.1.0-56-amd64 6.6.135 6.8.12 6.10.7 6.11.0-rc4 6.11.0 6.12.117+deb12-amd64 6.14.1 6.15.7 6.16.0-rc6 6.16.0 6.18.3 7.2.13; do
	RDCTL_KERNEL_RELEASE=$v run "no md bug $v" 3 --status
	if grep -q "known md bug" "$out"; then fail "no md bug $v: status warns"; else pass; fi
done

# --- usage errors of the mirror commands -------------------------------------
usage "create no disk" "--create needs an array and at least one disk" --create /dev/md0
usage "create bad array" "invalid array 'sdb': expected /dev/mdN, mdN or /dev/md/NAME" --create sdb /dev/sdc
usage "convert extra" "unexpected argument '/dev/sdb'" --convert /dev/md0 /dev/sdb
usage "bitmap bad" "invalid --bitmap 'yes': expected internal or none" --create /dev/md0 /dev/sdb --bitmap yes
usage "bitmap convert" "--bitmap goes with --create only" --convert /dev/md0 --bitmap none
usage "size attach" "--size goes with --create or --convert only" -a 1G --size 2G
usage "size bad" "not a multiple of 4 KiB" --convert /dev/md0 --size 5K
usage "dry-run list" "--dry-run goes with --create, --convert, --revert, --refresh, --release or --restore only" -l --dry-run
usage "dry-run wait" "--dry-run and --wait cannot be used together" --convert md0 --dry-run --wait
usage "create convert" "--create and --convert cannot be used together" --create /dev/md0 /dev/sdb --convert md0
usage "revert prealloc" "--prealloc goes with --attach, --create or --convert only" --revert md0 --prealloc

usage "member size" "--size and --member cannot be used together: a member disk is used whole" --convert md0 --member /dev/disk/by-id/x --size 2G
usage "member prealloc" "--prealloc and --member cannot be used together" --create /dev/md0 /dev/sdb --member /dev/disk/by-id/x --prealloc
usage "member empty" "--member needs a path" --convert md0 --member ''
usage "member revert" "--member goes with --create or --convert only" --revert md0 --member /dev/disk/by-id/x
usage "convert force" "--force goes with --convert only with --member" --convert md0 --force
usage "member abbreviated" "--mem" --convert md0 --mem /dev/disk/by-id/x

# --- a local disk as the fast member (mirror/member.h): what the fake tree
# can show (no block device here: the blank, size and block-size checks of
# a real disk run in test/bats/member_disk.bats; each refusal's text in
# test_member.c)
raid1_tree
mkdir -p "$broot/dev/disk/by-id"
: >"$broot/dev/nvme0n1"
ln -sf ../../nvme0n1 "$broot/dev/disk/by-id/nvme-rdtest-nvme"
refuse_convert "member kernel name" "--member $broot/dev/nvme0n1: a kernel name can name another disk after a reboot, and rdctl --restore would write over that one; give a stable name: $broot/dev/disk/by-id/nvme-rdtest-nvme" --member "$broot/dev/nvme0n1"
refuse_convert "member kernel name, --force" "--member $broot/dev/sdd: a kernel name can name another disk after a reboot, and rdctl --restore would write over that one; give a stable name: one under /dev/disk/by-id" --member "$broot/dev/sdd" --force
refuse_convert "member not a block device" "$broot/dev/disk/by-id/nvme-rdtest-nvme is not a block device: give a whole disk or a partition, for example /dev/sdb" --member "$broot/dev/disk/by-id/nvme-rdtest-nvme"
refuse_convert "member missing" "cannot use $broot/dev/disk/by-id/gone: No such file or directory" --member "$broot/dev/disk/by-id/gone"
run "create member kernel name" 1 --create /dev/md1 "$broot/dev/sdz" --member "$broot/dev/vdb" --config "$conf"
expect_err_has "create member kernel name" "--member $broot/dev/vdb: a kernel name can name another disk after a reboot"

# --restore of a mirror whose member disk is absent: the array runs from
# its disks, a warning with the command, exit 0, nothing attached or added;
# --status says member_absent (WARNING), and the member disk's kind
boot_tree
printf 'md0 auto member=%s\n' "$broot/dev/disk/by-id/nvme-gone" >"$conf"
: >"$blog"
run "restore --dry-run member absent" 0 --restore --dry-run --config "$conf"
expect_out "restore --dry-run member absent" "md0: member disk absent (no device at $broot/dev/disk/by-id/nvme-gone): would leave md0 running from its disks; would make sdc write-mostly"
run "restore member absent" 0 --restore --config "$conf"
expect_out_has "restore member absent" "md0: member disk absent (no device at $broot/dev/disk/by-id/nvme-gone): md0 runs from its disks; put a disk there (a blank one is filled), then rdctl --restore"
err_line "restore member absent: warning" "rdctl: warning: md0: member disk absent"
expect_log_lacks "restore member absent: nothing attached or added" "ADD|--add|--re-add|--grow"
run "restore member absent json" 0 --restore --json --config "$conf"
validate "restore member absent json" restore,config_errors
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["restore"][0]["action"]=="absent" and d["restore"][0]["error"] is None))' "$out"
then pass; else fail "restore member absent json: $(cat "$out")"; fi
run "status member absent" 3 --status --json --config "$conf"
validate "status member absent" module,memory,disks,arrays,mirrors,warnings,status
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=[x for x in d["warnings"] if x["code"]=="member_absent"]; sys.exit(not (len(w)==1 and w[0]["severity"]=="WARNING" and "nvme-gone is absent" in w[0]["message"] and not [x for x in d["warnings"] if x["code"]=="not_restored"]))' "$out"
then pass; else fail "status member absent: $(cat "$out")"; fi
# the text says the state and the command that fixes it
run "status member absent text" 3 --status --config "$conf"
expect_out_has "status member absent text" "! WARNING  md0 (line 1 of $conf) has no fast member: its member disk $broot/dev/disk/by-id/nvme-gone is absent: the array runs from its persistent disks; fix: put a disk at $broot/dev/disk/by-id/nvme-gone, then rdctl --restore: it fills a blank one, never one holding other data"
# the disk came back after that restore (its record says absent): the
# text says so and what --restore does with it, never a restore failure
mkdir -p "$broot/dev/disk/by-id"
: >"$broot/dev/nvme0n1"
ln -sf ../../nvme0n1 "$broot/dev/disk/by-id/nvme-gone"
run "status member back" 3 --status --config "$conf"
expect_out_has "status member back" "! WARNING  md0 (line 1 of $conf) has no fast member: its member disk $broot/dev/disk/by-id/nvme-gone was absent when the last restore ran ("
expect_out_has "status member back" ") and is there now: no restore has taken it in since; fix: rdctl --restore: it re-adds a disk that kept this array's data, fills a blank one, never writes one holding other data"
expect_out_lacks "status member back" "restore failed"
run "status member back json" 3 --status --json --config "$conf"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=[x for x in d["warnings"] if x["array"]=="md0" and x["code"] in ("not_restored","member_absent","member_foreign")]; sys.exit(not (len(w)==1 and w[0]["code"]=="not_restored" and w[0]["severity"]=="WARNING"))' "$out"
then pass; else fail "status member back json: $(cat "$out")"; fi
run "status member back nagios" 1 --status --nagios --config "$conf"
expect_out_has "status member back nagios" "member disk back, not restored"
# a restore re-added it, and it left the array since: said of the disk
printf '{"restore": [{"array": "md0", "spec": "md0", "line": 1, "uuid": null, "rd": "nvme0n1", "action": "re-added", "error": null}], "time": 1}\n' >"$RDCTL_RUN_DIR/restore.json"
run "status member re-added, gone" 3 --status --config "$conf"
expect_out_has "status member re-added, gone" "has no fast member: the last restore ("
expect_out_has "status member re-added, gone" ") left member disk nvme0n1 in it, which has failed or been removed since; fix: see dmesg; then rdctl --restore"
# the restore found another array's superblock on it (the record says so): CRITICAL
mkdir -p "$broot/dev/disk/by-id"
: >"$broot/dev/nvme0n1"
ln -sf ../../nvme0n1 "$broot/dev/disk/by-id/nvme-gone"
printf '{"restore": [{"array": "md0", "spec": "md0", "line": 1, "uuid": null, "rd": "nvme0n1", "action": "foreign", "error": {"code": "EEXIST", "message": "member disk not used, never written: %s holds linux_raid_member at 0x1000 (wipefs); md0 runs from its disks. If its contents are unwanted: wipefs -a %s, then rdctl --restore; or name another disk in %s"}}], "time": 1}\n' "$broot/dev/disk/by-id/nvme-gone" "$broot/dev/disk/by-id/nvme-gone" "$conf" >"$RDCTL_RUN_DIR/restore.json"
run "status member foreign" 3 --status --json --config "$conf"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=[x for x in d["warnings"] if x["code"]=="member_foreign"]; sys.exit(not (len(w)==1 and w[0]["severity"]=="CRITICAL" and "linux_raid_member" in w[0]["message"]))' "$out"
then pass; else fail "status member foreign: $(cat "$out")"; fi
# the text says what was found once, that rdctl will not write it, and
# the wipe only for data that is unwanted
run "status member foreign text" 3 --status --config "$conf"
expect_out_has "status member foreign text" "! CRITICAL md0 (line 1 of $conf) has no fast member: its member disk holds other data, which rdctl will not write to: the last restore ("
expect_out_has "status member foreign text" ") found $broot/dev/disk/by-id/nvme-gone holds linux_raid_member at 0x1000 (wipefs); fix: only if that data is unwanted: wipefs -a $broot/dev/disk/by-id/nvme-gone, then rdctl --restore; else name another disk in $conf"
expect_out_lacks "status member foreign text" "never written"
# a disk member in the array: its kind in the text, JSON and Prometheus
member md0 nvme0n1 in_sync 2
put "$broot/sys/class/block/nvme0n1/stat" "42 0 0 0 0 0 0 0 0 0 0"
run "status member kind" 3 --status --json --config "$conf"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); k={m["name"]: m["kind"] for a in d["arrays"] for m in a["members"]}; sys.exit(k.get("nvme0n1") != "disk")' "$out"
then pass; else fail "status member kind: $(cat "$out")"; fi
run "status member kind text" 3 --status --config "$conf"
expect_out_has "status member kind text" "in sync (nvme0n1): reads come from the member disk"
expect_out_lacks "status member kind text" "reads come from RAM"
run "status member kind prometheus" 0 --status --prometheus --config "$conf"
expect_out_has "status member kind prometheus" 'device="nvme0n1",kind="disk"'
rm -f "$RDCTL_RUN_DIR/restore.json"

IFS='|' read -r RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT <<<"$saved_env"
export RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT
unset RDCTL_FAKE_LOG RDCTL_MDADM_CONF
