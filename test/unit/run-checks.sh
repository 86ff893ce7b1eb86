#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side checks of rdctl, run by `make -C utils check`:
#   the C unit tests, rdctl run end to end on a fake sysfs/proc/dev tree
#   (the control ioctls answered by the fake_ioctl.so LD_PRELOAD shim),
#   valgrind runs, every JSON document validated against rdctl.schema.json,
#   and the man page. Ends with one line "N passed, N failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
utils=$(cd "$here/../../utils" && pwd)
# the tests' build: rdctl with the seams (utils/lib/seams.h) this file sets
rdctl=$here/../../build/test-bin/rdctl
schema=$utils/rdctl.schema.json
shim=$here/fake_ioctl.so
version=$(cat "$utils/../VERSION")
# the build identity rdctl and the fake module carry (scripts/build-id)
build_id=$(bash "$utils/../scripts/build-id" "$utils/..")

passed=0
failed=0
tmp=$(mktemp -d /tmp/rdctl-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
# A misspelt check (a helper that does not exist) is a failure, not a
# "command not found" on stderr that the count never sees. (bash runs this
# handler in a subshell: it counts through a file.)
command_not_found_handle() {
	echo "FAIL: no such command in the checks: $1" >&2
	echo "$1" >>"$tmp/not-found"
	return 127
}

# --- C unit tests ---------------------------------------------------------
if "$here/unit_tests" >"$tmp/unit.out" 2>"$tmp/unit.err"; then :; fi
cat "$tmp/unit.err" >&2
line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed$' "$tmp/unit.out" || true)
if [ -z "$line" ]; then
	fail "unit_tests did not report its counts"
else
	read -r _ p _ f _ <<<"$line"
	passed=$((passed + p))
	failed=$((failed + f))
fi

# --- fake tree --------------------------------------------------------------
root=$tmp/root
"$here/mkfaketree" "$root" || { echo "cannot build the fake tree" >&2; exit 1; }
export RDCTL_SYSFS_ROOT=$root/sys RDCTL_PROC_ROOT=$root/proc RDCTL_DEV_ROOT=$root/dev
# an empty modules directory: libkmod finds no rdmirror, and never loads a real one
export RDCTL_MODULES_DIR=$root/lib/modules
mkdir -p "$RDCTL_MODULES_DIR"
# the lock of the changing commands in the test directory, not /run; the
# fake mdadm (test/unit/fake-mdadm), never the host's
export RDCTL_RUN_DIR=$tmp/run RDCTL_MDADM=$here/fake-mdadm
# warm-start records: never the host's /var/lib/rdmirror (the directory is missing here)
export RDCTL_STATE_DIR=$tmp/no-state
# never the host's mdadm.conf, never its update-initramfs or dracut
export RDCTL_MDADM_CONF=$tmp/mdadm.conf RDCTL_UPDATE_INITRAMFS=$tmp/no-update-initramfs \
	RDCTL_INITRAMFS_HOOK=$tmp/no-hook RDCTL_DRACUT=$tmp/no-dracut
: >"$RDCTL_MDADM_CONF"
# --status reads the configuration: not the host's /etc/rdmirror.conf (none here)
export RDCTL_CONFIG=$tmp/no-rdmirror.conf
mkdir -p "$RDCTL_RUN_DIR"
: >"$root/dev/rdmirror-control"	# a regular file: the shim answers its ioctls

# run NAME EXIT ARGS...: run rdctl with the shim; keep stdout/stderr in
# $out/$err; count a test for the exit status.
out=$tmp/out err=$tmp/err
run() {
	local name=$1 want=$2 got
	shift 2
	LD_PRELOAD=$shim "$rdctl" "$@" >"$out" 2>"$err"
	got=$?
	if [ "$got" -eq "$want" ]; then pass; else fail "$name: exit $got, want $want (rdctl $*): $(cat "$err")"; fi
}

expect_out() {	# NAME TEXT: stdout is exactly TEXT
	if [ "$(cat "$out")" = "$2" ]; then pass; else fail "$1: stdout is '$(cat "$out")', want '$2'"; fi
}
expect_err() {	# NAME TEXT: stderr is exactly one line "rdctl: TEXT"
	if [ "$(wc -l <"$err")" -eq 1 ] && [ "$(cat "$err")" = "rdctl: $2" ]; then pass
	else fail "$1: stderr is '$(cat "$err")', want 'rdctl: $2'"; fi
}
expect_err_has() {	# NAME TEXT: stderr is one line starting "rdctl: " and holding TEXT
	if [ "$(wc -l <"$err")" -eq 1 ] && grep -q '^rdctl: ' "$err" && grep -qF -- "$2" "$err"; then pass
	else fail "$1: stderr '$(cat "$err")' lacks '$2'"; fi
}
expect_out_has() {
	if grep -qF -- "$2" "$out"; then pass; else fail "$1: stdout lacks '$2': $(cat "$out")"; fi
}
expect_out_lacks() {	# NAME TEXT: stdout does not hold TEXT
	if ! grep -qF -- "$2" "$out"; then pass; else fail "$1: stdout has '$2': $(cat "$out")"; fi
}
expect_err_lacks() {	# NAME TEXT: stderr does not hold TEXT
	if ! grep -qF -- "$2" "$err"; then pass; else fail "$1: stderr has '$2': $(cat "$err")"; fi
}
expect_no_out() {
	if [ ! -s "$out" ]; then pass; else fail "$1: unexpected stdout: $(cat "$out")"; fi
}

# vg NAME EXIT ARGS...: run rdctl under valgrind (leaks and errors fail)
vg() {	# NAME EXIT ARGS...
	local name=$1 want=$2 got
	shift 2
	if ! command -v valgrind >/dev/null; then
		fail "valgrind $name: valgrind is not installed (apt-get install valgrind)"
		return
	fi
	LD_PRELOAD=$shim valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect "$rdctl" "$@" >"$out" 2>"$err"
	got=$?
	if [ "$got" -eq "$want" ]; then pass; else fail "valgrind $name: exit $got, want $want: $(cat "$err")"; fi
}
njson=0
validate() {	# NAME KEYS: stdout is one valid document with these top-level keys
	local rc
	njson=$((njson + 1))
	cp "$out" "$tmp/doc$njson.json"
	/usr/bin/python3 "$here/validate-json.py" "$schema" "$2" "$tmp/doc$njson.json"
	rc=$?
	if [ "$rc" -eq 0 ]; then pass
	elif [ "$rc" -eq 3 ]; then fail "$1: cannot validate JSON: python3-jsonschema missing"
	else fail "$1: JSON invalid against the schema"; fi
}
expect_code() {	# NAME CODE: stdout is an error document with that code
	validate "$1" error
	if /usr/bin/python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["error"]["code"] != sys.argv[2])' \
		"$out" "$2" 2>/dev/null; then pass; else fail "$1: error code is not $2: $(cat "$out")"; fi
}

usage() {	# NAME TEXT ARGS...
	local name=$1 text=$2
	shift 2
	run "$name" 2 "$@"
	expect_no_out "$name"
	expect_err_has "$name" "$text"
}

# --- the table of wrong invocations: each one's exit status and message ---------
nwrong=0
while IFS='|' read -r want msg args; do
	[[ "$want" =~ ^[[:space:]]*(#|$) ]] && continue
	want=${want// /}
	msg=${msg# }
	msg=${msg% }
	read -ra argv <<<"$args"
	for i in "${!argv[@]}"; do
		[ "${argv[i]}" = "''" ] && argv[i]=""
	done
	nwrong=$((nwrong + 1))
	run "wrong:${args}" "$want" "${argv[@]}"
	expect_err_has "wrong:${args}" "$msg"
done <"$here/wrong-invocations.txt"
if [ "$nwrong" -ge 50 ]; then pass; else fail "wrong-invocations.txt has $nwrong lines, want 50 or more"; fi

# --- read-only commands ------------------------------------------------------
run list 0 --list
expect_out_has "list header" "NAME KIND  SIZE  USED PREALLOC MIRROR ROLE   STATE  SYNC    DONE MOUNTPOINT"
expect_out_has "list rd0" "rd0  ram     2G  512M no       md0    active active resync 25.0%"
expect_out_has "list rd1" "rd1  ram   128M  128M yes                                        /mnt/rd one"
# The rdctl a package installs honours no seam: given the same stand-in
# /sys it reads the real one, where this host has no rd disk (no module).
LD_PRELOAD=$shim "$utils/rdctl" --list >"$out" 2>"$err" || true
if ! grep -q '^rd0' "$out"; then pass
else fail "the shipped rdctl honoured RDCTL_SYSFS_ROOT: $(cat "$out")"; fi
run "list json" 0 -l -j
validate "list json" disks
if grep -q '"sync_action": "resync"' "$out" && grep -q '"sync_percent": 25' "$out"; then pass
else fail "list json: no sync_action/sync_percent of rd0: $(cat "$out")"; fi
# the columns, as lsblk and zramctl take them
run "list raw" 0 --list -o NAME,SIZE,USED --raw -n
if [ "$(cat "$out")" = "$(printf 'rd0 2G 512M\nrd1 128M 128M\nrd2 1M ')" ]; then pass
else fail "list raw: $(cat -A "$out")"; fi
run "list bytes" 0 -l -b -o name,size -n --raw
if [ "$(cat "$out")" = "$(printf 'rd0 2147483648\nrd1 134217728\nrd2 1048576')" ]; then pass
else fail "list bytes: $(cat -A "$out")"; fi
run "list raw escapes" 0 -l -o NAME,MOUNTPOINT --raw rd1
if [ "$(cat "$out")" = "$(printf 'NAME MOUNTPOINT\nrd1 /mnt/rd\\x20one')" ]; then pass
else fail "list raw escapes: $(cat -A "$out")"; fi
run "list all" 0 -l --output-all
if head -n 1 "$out" | grep -qE '^NAME +KIND +MAJ:MIN +SIZE +USED +RATIO +PREALLOC +MIRROR +ROLE +STATE +SYNC +DONE +MOUNTPOINT +HOLDERS$'; then pass
else fail "list all: $(head -n 1 "$out")"; fi
run "list add column" 0 -l -o +HOLDERS
expect_out_has "list add column" "MOUNTPOINT  HOLDERS"
run "list one" 0 --list rd1
if [ "$(wc -l <"$out")" = 2 ] && grep -q '^rd1 ' "$out"; then pass; else fail "list one: $(cat "$out")"; fi
run "list two in order" 0 --list -n -o NAME /dev/rd2 rd0
if [ "$(cat "$out")" = "$(printf 'rd2\nrd0')" ]; then pass; else fail "list two in order: $(cat -A "$out")"; fi
run "list one json" 0 --list rd1 --json
validate "list one json" disks
run "list missing" 1 --list rd7
expect_err "list missing" "rd7: no such rd disk (see rdctl --list)"
expect_no_out "list missing"
usage "list bad name" "invalid disk name 'extra'" -l extra
usage "list twice" "rd0 given twice" -l rd0 /dev/rd0
usage "list bad column" "unknown column 'BOGUS' in --output 'NAME,BOGUS': the columns are NAME, KIND, MAJ:MIN, SIZE" -l -o NAME,BOGUS
run "output json" 2 -l -o NAME --json
expect_code "output json" USAGE
usage "raw status" "--raw goes with --list only" -s --raw
usage "noheadings attach" "--noheadings goes with --list only" -a 4M -n
run status 3 -s
expect_out_has "status module" "module:  rdmirror $build_id loaded"
expect_out_has "status memory" "memory:  total 16 GiB, available 1 GiB, held by rd disks 640 MiB"
expect_out_has "status array" "md0: raid1, active, degraded 0, raid disks 3"
expect_out_has "status sync" "sync: resync 25.0% at 100 MiB/s, ETA 15s"
expect_out_has "status member" "  sdb    persistent yes          active in_sync,write_mostly"
expect_out_has "status warn wm" "persistent member sdc is not write-mostly"
expect_out_has "status warn wm fix" "sdc is not write-mostly: reads may go to the disk; fix: rdctl --restore"
expect_out_has "status warn sync" "resync running (25.0%, 100 MiB/s, ETA 15s): reads are not yet served from RAM"
expect_out_has "status warn mem" "rd0 (2 GiB) may still need 1.5 GiB of RAM but only 1 GiB is available"
run "status json" 3 --status --json
validate "status json" module,memory,disks,arrays,mirrors,warnings,status
run "status quiet" 3 --status --quiet
expect_no_out "status quiet"
usage "quiet list" "--quiet goes with --status only" -l -q
run version 0 --version
expect_out_has version "rdctl $build_id"
run "version json" 0 -V -j
validate "version json" version
run help 0 --help
expect_out_has help "Usage: rdctl COMMAND [OPTIONS]"

# --- attach ------------------------------------------------------------------
run attach 0 --attach 512
expect_out attach "Attached device rd3 of size 512 MiB"
run "attach short" 0 -a 2G --ignore-memory
expect_out "attach 2G" "Attached device rd3 of size 2048 MiB"
run "attach over memory" 1 -a 2048
expect_no_out "attach over memory"
expect_err "attach over memory" "attaching this disk needs 2048 MiB, more than the available memory (1024 MiB): use a smaller size, or --ignore-memory"
run "attach json" 0 -a 1G --prealloc --json
validate "attach json" attached
for e in EPERM ENOMEM ENOSPC EINVAL EINTR ENOTTY EIO; do
	RDCTL_FAKE_IOCTL_ERRNO=$e run "attach $e" 1 -a 512
	expect_no_out "attach $e"
	RDCTL_FAKE_IOCTL_ERRNO=$e run "attach $e json" 1 -a 512 --json
	expect_code "attach $e json" "$e"
done
RDCTL_FAKE_IOCTL_ERRNO=EPERM run "attach EPERM" 1 -a 512
expect_err "attach EPERM" "attach needs root (CAP_SYS_ADMIN): run rdctl as root"
RDCTL_FAKE_IOCTL_ERRNO=ENOSPC run "attach ENOSPC" 1 -a 512
expect_err_has "attach ENOSPC" "max_disks limit is reached"
RDCTL_FAKE_IOCTL_ERRNO=ENODEV run "attach ENODEV" 1 -a 512
expect_err "attach ENODEV" "attach failed: No such device (ENODEV): see dmesg"
RDCTL_FAKE_IOCTL_ERRNO=ENOSPC run "flush ENOSPC" 1 --flush rd2
expect_err "flush ENOSPC" "flush of rd2 failed: No space left on device (ENOSPC): see dmesg"
RDCTL_FAKE_IOCTL_ERRNO=EINTR run "detach EINTR" 1 --detach rd2
expect_err "detach EINTR" "detach was interrupted: nothing was changed; try again"
RDCTL_FAKE_IOCTL_ERRNO=ENOMEM run "attach ENOMEM" 1 -a 512 --prealloc
expect_err_has "attach ENOMEM" "not enough memory for a 512 MiB disk (preallocation needs all of it free now): choose a smaller size or free memory"

# --- detach ------------------------------------------------------------------
run detach 0 --detach rd0
expect_out detach "Detached device rd0"
run "detach /dev" 0 --detach /dev/rd2
expect_out "detach /dev" "Detached device rd2"
run "detach json" 0 --detach rd1 -j
validate "detach json" detached
RDCTL_FAKE_IOCTL_ERRNO=EBUSY run "detach md member" 1 --detach rd0
expect_no_out "detach md member"
expect_err "detach md member" "rd0 is the RAM member of md0: take it out with rdctl --release /dev/md0 (until the next rdctl --restore) or rdctl --revert /dev/md0 (for good)"
RDCTL_FAKE_IOCTL_ERRNO=EBUSY run "detach mounted" 1 --detach rd1
expect_err "detach mounted" "rd1 is mounted on /mnt/rd one: unmount it first"
RDCTL_FAKE_IOCTL_ERRNO=EBUSY run "detach open" 1 --detach rd2
expect_err "detach open" "rd2 is open by a process: see fuser -v /dev/rd2"
RDCTL_FAKE_IOCTL_ERRNO=EBUSY run "detach busy json" 1 --detach rd0 --json
expect_code "detach busy json" EBUSY
RDCTL_FAKE_IOCTL_ERRNO=ENODEV run "detach missing" 1 --detach rd7
expect_err "detach missing" "no such disk rd7: see rdctl --list"

# --- the journal: one line for each change to a RAM disk (lib/journal.h) ----
jlog=$tmp/disk-syslog
rm -f "$jlog"
RDCTL_FAKE_SYSLOG=$jlog run "journal attach" 0 --attach 512 --prealloc
RDCTL_FAKE_SYSLOG=$jlog run "journal resize" 0 --resize rd2 4M
RDCTL_FAKE_SYSLOG=$jlog run "journal flush" 0 --flush rd1
RDCTL_FAKE_SYSLOG=$jlog run "journal detach" 0 --detach rd2
RDCTL_FAKE_IOCTL_ERRNO=ENOMEM RDCTL_FAKE_SYSLOG=$jlog run "journal attach ENOMEM" 1 -a 512
RDCTL_FAKE_IOCTL_ERRNO=EBUSY RDCTL_FAKE_SYSLOG=$jlog run "journal detach EBUSY" 1 --detach rd1
want="info attach rd3: 512 MiB, preallocated (by rdctl --attach 512 --prealloc)
info resize rd2 to 4 MiB (by rdctl --resize rd2 4M)
info flush rd1: its data dropped, its pages freed (by rdctl --flush rd1)
info detach rd2 (by rdctl --detach rd2)
err attach of 512 MiB failed: Cannot allocate memory (by rdctl -a 512)
err detach rd1 failed: Device or resource busy (by rdctl --detach rd1)"
if [ "$(cat "$jlog" 2>/dev/null)" = "$want" ]; then pass; else fail "journal of RAM disk changes: '$(cat "$jlog" 2>/dev/null)', want '$want'"; fi
# a change that is only asked about (--dry-run, --list) writes nothing
rm -f "$jlog"
RDCTL_FAKE_SYSLOG=$jlog run "journal list" 0 --list
if [ ! -e "$jlog" ]; then pass; else fail "journal list: $(cat "$jlog")"; fi

# --- resize, flush -----------------------------------------------------------
RDCTL_FAKE_IOCTL_ERRNO=ENOMEM run "resize ENOMEM" 1 -r rd2 8M
expect_err "resize ENOMEM" "not enough memory to resize rd2 to 8 MiB: choose a smaller size or free memory"
RDCTL_FAKE_IOCTL_ERRNO=EINVAL run "resize EINVAL" 1 -r rd2 8M
expect_err_has "resize EINVAL" "the kernel refused resize as invalid (EINVAL)"
run resize 0 --resize rd2 4M
expect_out resize "Resized device rd2 from 1 MiB to 4 MiB"
run "resize /dev" 0 -r /dev/rd2 4096K -j
validate "resize json" resized
run "resize over memory" 1 -r rd0 8G
expect_err_has "resize over memory" "growing this disk needs 6144 MiB, more than the available memory (1024 MiB)"
run "resize force" 0 -r rd0 8G --ignore-memory
run "resize missing" 1 -r rd9 1G
expect_err "resize missing" "no such disk rd9: see rdctl --list"
RDCTL_FAKE_IOCTL_ERRNO=EBUSY run "resize busy" 1 -r rd0 1G
expect_err_has "resize busy" "cannot shrink rd0 while it is in use (it can only grow): rd0 is the RAM member of md0: take it out with rdctl --release /dev/md0"
run flush 0 --flush rd1
expect_out flush "Flushed device rd1: freed 0 B"
run "flush json" 0 --flush rd1 -j
validate "flush json" flushed
RDCTL_FAKE_IOCTL_ERRNO=EBUSY run "flush busy" 1 --flush rd0
expect_err_has "flush busy" "rd0 is the RAM member of md0: take it out with rdctl --release /dev/md0"

# --- usage errors: exit 2, one line, nothing on stdout --------------------------
usage "size negative" "cannot be negative" -a -5
usage "size zero" "larger than 0" -a 0
usage "size unit" "unknown unit 'x'" -a 12x
usage "size empty" "empty size" -a ""
usage "size overflow" "too large" -a 99999999999999999999
usage "size unaligned" "not a multiple of 4 KiB" -a 5K
usage "size resize" "unknown unit 'q'" -r rd0 1q
usage "bad name" "invalid disk name 'sda'" --detach sda
usage "bad name 2" "invalid disk name 'rd'" --flush rd
usage "no command" "no command given" 
usage "two commands" "--list and --status cannot be used together" -l -s
usage "unknown long" "unknown option '--frobnicate'" --frobnicate
usage "unknown short" "unknown option '-x'" -x
usage "missing arg" "option --attach needs an argument" --attach
usage "resize no size" "--resize needs a disk and a size" -r rd0
usage "extra arg" "unexpected argument 'extra'" -s extra
# destructive commands are never run from an abbreviation
usage "abbrev release" "'--rel' would run --release: write it in full" --rel
usage "abbrev revert" "'--rev' would run --revert: write it in full" --rev /dev/md0
usage "abbrev detach" "'--det' would run --detach: write it in full" --det rd0
usage "abbrev detach eq" "'--detac' would run --detach: write it in full" --detac=rd0
usage "abbrev flush" "'--fl' would run --flush: write it in full" --fl rd0
usage "abbrev create" "'--cr' would run --create: write it in full" --cr /dev/md99 /dev/sdx /dev/sdy
usage "abbrev convert" "'--conv' would run --convert: write it in full" --conv /dev/md0
usage "abbrev force" "'--fo' would give --force: write it in full" --create /dev/md99 /dev/sdx /dev/sdy --fo --dry-run
usage "abbrev force eq" "'--forc' would give --force: write it in full" --forc --convert /dev/md0
usage "abbrev ignore-memory" "'--ignore-m' would give --ignore-memory: write it in full" -a 4M --ignore-m
usage "abbrev ignore-kernel-bug" "'--ignore-k' would give --ignore-kernel-bug: write it in full" --convert /dev/md0 --ignore-k
usage "ambiguous" "ambiguous option '--re': it could be --resize, --restore, --release, --revert" --re
usage "no argument" "option --list takes no argument (in '--list=foo')" --list=foo
usage "no argument short" "option --force takes no argument (in '--force=1')" -a 4M --force=1
usage "unknown in cluster" "unknown option '-x'" -lx
run "abbrev read-only" 3 --stat --qui
usage "timeout alone" "--timeout goes with --wait only" --restore --timeout 5
usage "timeout bad" "invalid --timeout '0': expected whole seconds from 1 to 86400" --restore --wait --timeout 0
usage "prealloc alone" "--prealloc goes with --attach, --create or --convert only" -l --prealloc
usage "force alone" "--force goes with --create or --convert only: past the memory check give --ignore-memory, past a known md bug --ignore-kernel-bug" --detach rd0 --force
usage "wait alone" "--wait goes with --restore, --create, --convert or --refresh only" -l --wait
usage "config alone" "--config goes with --status, --restore, --create, --convert, --revert or --refresh only" --release --config /x
usage "config twice" "--config given twice" --restore --config /a --config /b
usage "config arg" "option --config needs an argument" --restore --config
usage "restore and release" "--restore and --release cannot be used together" --restore --release
run "config missing" 1 --restore --config /nonexistent/rdmirror.conf --json
expect_code "config missing" ENOENT
run "usage json" 2 -a 12x --json
expect_code "usage json" USAGE

# --- module absent -------------------------------------------------------------
mv "$root/sys/module/rdmirror" "$root/sys/module/rdmirror.off"
mv "$root/dev/rdmirror-control" "$root/dev/rdmirror-control.off"
run "detach no module" 1 --detach rd0
expect_err "detach no module" "the rdmirror module is not loaded, so there is no rd disk: see rdctl --list"
run "attach no module" 1 -a 512
expect_no_out "attach no module"
# no headers for the kernel: the fix installs them first (apt-get here)
expect_err_has "attach no module" "the rdmirror module is not installed for the running kernel $(uname -r): apt-get install linux-headers-$(uname -r) (the headers are missing, so DKMS built nothing for it), then dkms install rdmirror/$version -k $(uname -r)"
mkdir "$RDCTL_MODULES_DIR/build"
run "attach no module, headers" 1 -a 512
expect_err_has "attach no module, headers" "the rdmirror module is not installed for the running kernel $(uname -r): dkms install rdmirror/$version -k $(uname -r)"
rmdir "$RDCTL_MODULES_DIR/build"
vg "attach no module" 1 -a 512 --json
run "status no module" 3 -s -j
validate "status no module" module,memory,disks,arrays,mirrors,warnings,status
mv "$root/sys/module/rdmirror.off" "$root/sys/module/rdmirror"
mv "$root/dev/rdmirror-control.off" "$root/dev/rdmirror-control"

# --- nothing to warn about: --status exits 0 ------------------------------------
empty=$tmp/empty
mkdir -p "$empty/sys/block" "$empty/sys/module" "$empty/proc/self" "$empty/dev"
cp "$root/proc/meminfo" "$empty/proc/"
RDCTL_SYSFS_ROOT=$empty/sys RDCTL_PROC_ROOT=$empty/proc RDCTL_DEV_ROOT=$empty/dev run "status clean" 0 --status
expect_out_has "status clean" "warnings: none"
RDCTL_SYSFS_ROOT=$empty/sys RDCTL_PROC_ROOT=$empty/proc RDCTL_DEV_ROOT=$empty/dev run "status clean quiet" 0 -s -q
expect_no_out "status clean quiet"
# an empty list prints nothing, not a lone header
RDCTL_SYSFS_ROOT=$empty/sys RDCTL_PROC_ROOT=$empty/proc RDCTL_DEV_ROOT=$empty/dev run "list empty" 0 --list
expect_no_out "list empty"

# --- a sysfs attribute that cannot be read: a clear error, not a wrong table ----------
a=$root/sys/block/rd0/rdmirror/allocated_bytes
mv "$a" "$a.off" && mkdir "$a"
run "sysfs unreadable" 1 --list
expect_no_out "sysfs unreadable"
expect_err_has "sysfs unreadable" "cannot read the rd disks in $root/sys/block: Is a directory"
run "sysfs unreadable json" 1 --status --json
expect_code "sysfs unreadable json" EISDIR
vg "sysfs unreadable" 1 --list
rmdir "$a" && mv "$a.off" "$a"

# --- restore and release: fake tree, fake mdadm, fake ioctls -----------------------
. "$here/boot-checks.sh"
# shellcheck source=test/unit/mirror-checks.sh
. "$here/mirror-checks.sh"
# shellcheck source=test/unit/verb-checks.sh
. "$here/verb-checks.sh"
# shellcheck source=test/unit/lock-checks.sh
. "$here/lock-checks.sh"
# shellcheck source=test/unit/status-checks.sh
. "$here/status-checks.sh"
# shellcheck source=test/unit/compress-checks.sh
. "$here/compress-checks.sh"
# shellcheck source=test/unit/build-id-checks.sh
. "$here/build-id-checks.sh"

# --- sizes as util-linux reads them; the configuration: NULs, one array twice ------
run "attach fraction" 0 --attach 0.5G
expect_out "attach fraction" "Attached device rd3 of size 512 MiB"
run "attach decimal unit" 0 --attach 4096KB
expect_out "attach decimal unit" "Attached device rd3 of size 4000 KiB"
usage "size decimal unit" "invalid size '1MB': 1000000 bytes is not a multiple of 4 KiB (4096 bytes); the nearest valid sizes are 999424 (976 KiB) and 1003520 (980 KiB)" -a 1MB
usage "size comma" "invalid size '1,5G': the decimal point is '.', not ','" -a 1,5G
saved_env="$RDCTL_SYSFS_ROOT|$RDCTL_PROC_ROOT|$RDCTL_DEV_ROOT|$PATH"
export RDCTL_FAKE_LOG=$blog RDCTL_RESTORE_TIMEOUT=0
export RDCTL_SYSFS_ROOT=$broot/sys RDCTL_PROC_ROOT=$broot/proc RDCTL_DEV_ROOT=$broot/dev
# md0 by its name and by its UUID: only the running system can tell, and
# neither line is done (which one is meant?); nothing changes
boot_tree
UUID=$(echo "$uuid" | tr a-f A-F)
printf 'md0 auto\n# the same array\nUUID=%s 2G\n' "$UUID" >"$conf"
run "restore one array twice" 1 --restore --config "$conf"
expect_no_out "restore one array twice"
expect_err "restore one array twice" "$conf: lines 1 and 3 both name /dev/md0 (md0, UUID=$UUID): neither is used; keep one of them"
expect_log_lacks "restore one array twice: nothing changed" "--add|--run|--readwrite|--remove|ioctl"
if [ "$(state_of sdc)" = in_sync ]; then pass; else fail "restore one array twice: sdc is $(state_of sdc)"; fi
run "restore one array twice json" 1 --restore --config "$conf" --json
validate "restore one array twice json" restore,config_errors
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["restore"]==[] and [e["line"] for e in d["config_errors"]]==[0]))' "$out"
then pass; else fail "restore one array twice json: $(cat "$out")"; fi
vg "restore one array twice" 1 --restore --config "$conf" --json
# a NUL byte: an error of its line, the other lines are still done
boot_tree
printf 'md0 auto\nmd1 1G \0 junk\n' >"$conf"
run "restore NUL" 1 --restore --config "$conf"
expect_out "restore NUL" "md0: attached rd3 (1025 MiB), added to md0, sdc write-mostly, recovery started"
expect_err "restore NUL" "$conf:2: contains a NUL byte: this is not a text file, or it is damaged"
IFS='|' read -r RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT PATH <<<"$saved_env"
export RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT PATH
unset RDCTL_FAKE_LOG RDCTL_RESTORE_TIMEOUT

# --- valgrind runs --------------------------------------------------------------------
if command -v valgrind >/dev/null; then
	if valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		"$here/unit_tests" >"$out" 2>"$err"; then pass
	else fail "valgrind unit_tests: $(grep -v '^FAIL' "$err" | head -20)"; fi
fi
vg list 0 --list
vg status 3 --status
vg "list json" 0 --list --json
vg "status json" 3 --status --json
vg "list columns" 0 --list -o NAME,MOUNTPOINT,HOLDERS --raw rd1
vg "bad size" 2 --attach 12x
vg "bad size json" 2 --attach 12x --json
vg attach 0 --attach 512 --json
RDCTL_FAKE_IOCTL_ERRNO=EBUSY vg "detach busy" 1 --detach rd0 --json
vg resize 0 --resize rd2 8M
vg flush 0 --flush rd1 --json
vg version 0 --version --json

# --- man page and --help -------------------------------------------------------------
if command -v man >/dev/null; then
	man --warnings -l "$utils/rdctl.8" 2>"$tmp/man.err" >/dev/null
	rc=$?
elif command -v groff >/dev/null; then
	groff -man -ww -z "$utils/rdctl.8" 2>"$tmp/man.err"
	rc=$?
else
	rc=1
	echo "neither man nor groff is installed (apt-get install man-db)" >"$tmp/man.err"
fi
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/man.err" ]; then pass; else fail "man page: $(cat "$tmp/man.err")"; fi
"$rdctl" --help >"$tmp/help"
grep -oE -- '--[a-z]+' "$tmp/help" | sort -u >"$tmp/help.opts"
# options the man page sets in bold (.B/.BR lines starting with one), not mdadm's in examples
grep -E '^\.BR? \\-' "$utils/rdctl.8" | grep -oE -- '\\-\\-[a-z]+' | sed 's/\\//g' | sort -u >"$tmp/man.opts"
while read -r opt; do
	if grep -qxF -- "$opt" "$tmp/man.opts"; then pass; else fail "--help names $opt, rdctl.8 does not"; fi
done <"$tmp/help.opts"
while read -r opt; do
	if grep -qxF -- "$opt" "$tmp/help.opts"; then pass; else fail "rdctl.8 names $opt, --help does not"; fi
done <"$tmp/man.opts"
# The options written in full only: rdctl's own list (--help prints it
# from the option table), the man page's and the README's, one list.
sed -n '/^Written in full only/,/^See rdctl/p' "$tmp/help" | grep -oE -- '--[a-z-]+' | sort >"$tmp/full.help"
sed -n '/override refusals:$/,/must be written in full/p' "$utils/rdctl.8" | grep -oE -- '\\-\\-[a-z\\-]+' |
	sed 's/\\//g' | sort >"$tmp/full.man"
sed -n '/override a refusal:$/,/^$/p' "$utils/../README.md" | grep -oE -- "\`--[a-z-]+\`" |
	tr -d '`' | sort >"$tmp/full.readme"
if [ -s "$tmp/full.help" ]; then pass; else fail "--help lists no option written in full"; fi
for where in man readme; do
	if diff -u "$tmp/full.help" "$tmp/full.$where" >"$tmp/full.diff"; then pass
	else fail "the options written in full: --help and the $where page differ: $(cat "$tmp/full.diff")"; fi
done

# --- the bash completion -----------------------------------------------------------
# complete WORDS...: COMPREPLY of the last word, one per line, in $out
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _rdctl
		printf "%s\n" "${COMPREPLY[@]}"' _ "$utils/rdctl.bash-completion" "$@" >"$out" 2>"$err"
}
expect_lines() {	# NAME LINES...: $out holds exactly these lines (any order)
	local name=$1
	shift
	if [ "$(sort "$out")" = "$(printf '%s\n' "$@" | sort)" ]; then pass
	else fail "completion $name: got '$(tr '\n' ' ' <"$out")', want '$*'"; fi
}
complete_words rdctl --attach 4
expect_lines "size units" 4 4K 4M 4G 4T 4KiB 4MiB 4GiB 4TiB
complete_words rdctl --resize rd0 1.5
expect_lines "resize size" 1.5 1.5K 1.5M 1.5G 1.5T 1.5KiB 1.5MiB 1.5GiB 1.5TiB
complete_words rdctl -o NAME,S
expect_lines "columns" NAME,SIZE NAME,STATE NAME,SYNC
complete_words rdctl --list --json --r
expect_lines "options once" --resize --restore --release --revert --refresh --raw
complete_words rdctl --list --li
expect_lines "no option twice" ""
if complete_words rdctl --json --wait --dry-run --prealloc --force --co && [ ! -s "$err" ]; then
	expect_lines "config, convert" --config --convert
else
	fail "completion: $(cat "$err")"
fi

if [ -s "$tmp/not-found" ]; then failed=$((failed + $(wc -l <"$tmp/not-found"))); fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
