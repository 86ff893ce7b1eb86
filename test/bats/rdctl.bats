#!/usr/bin/env bats
# rdctl against the real module: every command, its errors, its JSON.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"
bats_require_minimum_version 1.5.0

setup() { rd_common_setup; }
teardown() {
	rm -f /run/modprobe.d/rdtest.conf
	# The status test slows resync down to watch it run; undo that always.
	echo 200000 >/proc/sys/dev/raid/speed_limit_max
	echo 500000 >/proc/sys/dev/raid/speed_limit_min
	rd_common_teardown
}

SCHEMA="$RD_TOP/utils/rdctl.schema.json"

# json_ok KEY: $output is one JSON document, valid, with top-level KEY.
json_ok() {
	printf '%s' "$output" >"$T/doc.json"
	/usr/bin/python3 "$RD_TOP/test/unit/validate-json.py" "$SCHEMA" "$1" "$T/doc.json"
}

# json_get EXPR: evaluate a python expression over the document "d".
json_get() {
	/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$T/doc.json"
}

@test "attach loads the module through libkmod and prints the contract line" {
	rd_cleanup
	rmmod rdmirror
	run rdctl --attach 64
	[ "$status" = 0 ]
	[ "$output" = "Attached device rd0 of size 64 MiB" ]
	[ -d /sys/module/rdmirror ]
	[ "$(blockdev --getsize64 /dev/rd0)" = $((64 * MiB)) ]
	run rdctl -a 1G
	[ "$output" = "Attached device rd1 of size 1024 MiB" ]
	run rdctl -a 65536K
	[ "$output" = "Attached device rd2 of size 64 MiB" ]
	run rdctl -j -a 8M --prealloc
	[ "$status" = 0 ]
	json_ok attached
	[ "$(json_get "d['attached']['name']")" = rd3 ]
	[ "$(json_get "d['attached']['size']")" = $((8 * MiB)) ]
	[ "$(json_get "d['attached']['preallocated']")" = True ]
	[ "$(rd_allocated rd3)" = $((8 * MiB)) ]
}

@test "a blacklisted module is not loaded, and says so" {
	rd_cleanup
	rmmod rdmirror
	mkdir -p /run/modprobe.d
	echo "blacklist rdmirror" >/run/modprobe.d/rdtest.conf
	run rdctl --attach 64
	[ "$status" = 1 ]
	[[ "$output" == *blacklist* ]]
	[[ "$output" != *Attached* ]]
	[ ! -d /sys/module/rdmirror ]
}

@test "a module not installed for this kernel is a clear error" {
	rd_cleanup
	rmmod rdmirror
	mkdir -p "$T/mods/$(uname -r)"
	RDCTL_MODULES_DIR="$T/mods/$(uname -r)" run rdctl --attach 64
	[ "$status" = 1 ]
	[[ "$output" == *"not installed for the running kernel $(uname -r)"* ]]
	# no headers either: the fix installs them, then builds
	[[ "$output" == *"linux-headers-$(uname -r) (the headers are missing"*"dkms install rdmirror/"*" -k $(uname -r)"* ]]
	mkdir "$T/mods/$(uname -r)/build"
	RDCTL_MODULES_DIR="$T/mods/$(uname -r)" run rdctl --attach 64
	[ "$status" = 1 ]
	[[ "$output" == *"running kernel $(uname -r): dkms install rdmirror/"*" -k $(uname -r)"* ]]
}

@test "bad sizes are usage errors and create nothing" {
	for s in 0 -1 12x "" 1,5G 1MB .5G 99999999999999999999 16E 4097B " 64"; do
		run rdctl --attach "$s"
		[ "$status" = 2 ] || { echo "size '$s' gave $status: $output"; false; }
		[ "${#lines[@]}" = 1 ]
		[[ "$output" == rdctl:* ]]
	done
	run --separate-stderr rdctl -j --attach 12x
	[ "$status" = 2 ]
	json_ok error
	# shellcheck disable=SC2154 # bats' run --separate-stderr sets it
	[[ "$stderr" == rdctl:* ]]
	[ "$(json_get "d['error']['code']")" = USAGE ]
	[ -z "$(find /sys/block -name 'rd*')" ]
}

@test "sizes above available memory need --ignore-memory; above RAM the kernel says ENOMEM" {
	avail_mib=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	total_mib=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
	run rdctl --attach $((avail_mib + 64))
	[ "$status" = 1 ]
	[[ "$output" == *--ignore-memory* ]]
	[ ! -e /sys/block/rd0 ]
	# --force is --create's alone now
	run rdctl --attach $((avail_mib + 64)) --force
	[ "$status" = 2 ]
	[ ! -e /sys/block/rd0 ]
	run rdctl --attach $((avail_mib + 64)) --ignore-memory
	[ "$status" = 0 ]
	[ -e /sys/block/rd0 ]
	run --separate-stderr rdctl -j --attach $((total_mib * 2)) --ignore-memory
	[ "$status" = 1 ]
	json_ok error
	[ "$(json_get "d['error']['code']")" = ENOMEM ]
	[ ! -e /sys/block/rd1 ]
}

@test "detach: ok, unknown disk, and in use says who holds it" {
	rd_add $((64 * MiB))
	rd_add $((64 * MiB))
	rd_add $((64 * MiB))
	run rdctl --detach rd9
	[ "$status" = 1 ]
	[[ "$output" == *"no such disk rd9"* ]]
	run rdctl --detach sda
	[ "$status" = 2 ]
	# md member
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		/dev/rd0 --write-mostly "/dev/$(hdd 1)"
	run rdctl --detach rd0
	[ "$status" = 1 ]
	[ "$output" = "rdctl: rd0 is the RAM member of md0: take it out with rdctl --release /dev/md0 (until the next rdctl --restore) or rdctl --revert /dev/md0 (for good)" ]
	run --separate-stderr rdctl -j --detach /dev/rd0
	[ "$status" = 1 ]
	json_ok error
	[ "$(json_get "d['error']['code']")" = EBUSY ]
	# mount
	mkfs.ext4 -q /dev/rd1
	mkdir -p /tmp/rdtest-m
	mount /dev/rd1 /tmp/rdtest-m
	run rdctl --detach rd1
	[ "$output" = "rdctl: rd1 is mounted on /tmp/rdtest-m: unmount it first" ]
	# an open file descriptor
	exec 8</dev/rd2
	run rdctl --detach rd2
	[ "$status" = 1 ]
	[[ "$output" == *"rd2 is open by a process"* ]]
	exec 8<&-
	run rdctl --detach /dev/rd2
	[ "$status" = 0 ]
	[ "$output" = "Detached device rd2" ]
	[ ! -e /sys/block/rd2 ]
}

@test "resize grows in use, shrinks only when unused; flush frees pages" {
	rd_add $((16 * MiB))
	dd if=/dev/urandom of=/dev/rd0 bs=1M count=16 oflag=direct status=none
	exec 8</dev/rd0
	run rdctl --resize rd0 32
	[ "$status" = 0 ]
	[ "$output" = "Resized device rd0 from 16 MiB to 32 MiB" ]
	run rdctl --resize rd0 8
	[ "$status" = 1 ]
	[[ "$output" == *"cannot shrink rd0 while it is in use"* ]]
	run rdctl --flush rd0
	[ "$status" = 1 ]
	[[ "$output" == *"open by a process"* ]]
	exec 8<&-
	run rdctl -j --resize rd0 8
	[ "$status" = 0 ]
	json_ok resized
	[ "$(json_get "d['resized']['old_size']")" = $((32 * MiB)) ]
	[ "$(rd_allocated rd0)" = $((8 * MiB)) ]
	run rdctl --flush rd0
	[ "$status" = 0 ]
	[[ "$output" == "Flushed device rd0"* ]]
	[ "$(rd_allocated rd0)" = 0 ]
	run rdctl -J --flush rd0
	json_ok flushed
	run rdctl --resize rd7 8
	[ "$status" = 1 ]
	[[ "$output" == *"no such disk rd7"* ]]
}

@test "list: a table of disks with mirror membership, and valid JSON" {
	run rdctl --list
	[ "$status" = 0 ]
	# no disk: no table at all, not a lone header
	[ -z "$output" ]
	rd_add $((64 * MiB))
	rd_add $((32 * MiB)) prealloc
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		/dev/rd0 --write-mostly "/dev/$(hdd 1)"
	mdadm --wait /dev/md0 || true
	run rdctl --list
	[ "$status" = 0 ]
	echo "$output"
	[[ "${lines[0]}" =~ ^NAME\ +KIND\ +SIZE\ +USED\ +PREALLOC\ +MIRROR\ +ROLE\ +STATE\ +SYNC\ +DONE\ +MOUNTPOINT$ ]]
	[[ "${lines[1]}" =~ ^rd0\ +ram\ .*md0 ]]
	[[ "${lines[2]}" =~ ^rd1\ +ram\ +32M\ +32M\ +yes ]]
	run rdctl --list -o NAME,SIZE,USED,MIRROR --raw -n rd1 rd0
	[ "$status" = 0 ]
	[ "$output" = "$(printf 'rd1 32M 32M \nrd0 64M %s md0' "$(rdctl -l -o USED --raw -n rd0)")" ]
	run rdctl --list -b -o SIZE -n rd1
	[ "$output" = $((32 * MiB)) ]
	run rdctl --list rd7
	[ "$status" = 1 ]
	[[ "$output" == *"rd7: no such rd disk"* ]]
	run rdctl -j -l
	json_ok disks
	[ "$(json_get "d['disks'][0]['mirror']")" = md0 ]
	[ "$(json_get "d['disks'][1]['allocated']")" = $((32 * MiB)) ]
	[ "$(json_get "d['disks'][1]['mirror']")" = None ]
}

@test "status: module, memory, arrays with members and the warnings a user must see" {
	rd_add $((64 * MiB))
	# hdd2 not write-mostly (--write-mostly flags only the devices after
	# it): a warning. Keep the resync running to see it.
	echo 1000 >/proc/sys/dev/raid/speed_limit_max
	echo 1000 >/proc/sys/dev/raid/speed_limit_min
	mdadm --create /dev/md0 --run --level=1 --raid-devices=3 --metadata=1.2 \
		/dev/rd0 "/dev/$(hdd 2)" --write-mostly "/dev/$(hdd 1)"
	run rdctl -j --status
	# 3: the status was shown, with warnings
	[ "$status" = 3 ]
	json_ok module,memory,disks,arrays,mirrors,warnings,status
	# the module's build identity is rdctl's (scripts/build-id)
	[ "$(json_get "d['module']['version']")" = "$(rdctl --version | sed -n '1s/^rdctl //p')" ]
	[ "$(json_get "d['arrays'][0]['name']")" = md0 ]
	[ "$(json_get "d['arrays'][0]['level']")" = raid1 ]
	[ "$(json_get "sorted(m['name'] for m in d['arrays'][0]['members'])")" = "['rd0', '$(hdd 1)', '$(hdd 2)']" ]
	[ "$(json_get "[m['kind'] for m in d['arrays'][0]['members'] if m['name'] == 'rd0'][0]")" = ram ]
	codes=$(json_get "' '.join(sorted(w['code'] for w in d['warnings']))")
	echo "warnings: $codes"
	[[ " $codes " == *" not_write_mostly "* ]]
	[[ " $codes " == *" sync_running "* ]]
	# rd0 was attached past rdctl, with the kernel's I/O statistics off
	# (rd's default): its reads would count 0, said at OK
	[ "$(cat /sys/block/rd0/queue/iostats)" = 0 ]
	[[ " $codes " == *" ram_reads_uncounted "* ]]
	[ "$(json_get "[w['severity'] for w in d['warnings'] if w['code'] == 'ram_reads_uncounted'][0]")" = OK ]
	echo 1 >/sys/block/rd0/queue/iostats
	run rdctl -j --status
	json_ok module,memory,disks,arrays,mirrors,warnings,status
	codes=$(json_get "' '.join(sorted(w['code'] for w in d['warnings']))")
	[[ " $codes " != *" ram_reads_uncounted "* ]]
	run rdctl --status
	[ "$status" = 3 ]
	echo "$output"
	[[ "$output" == *md0* ]]
	[[ "$output" == *"$(hdd 2)"* ]]
	[[ "$output" == *"not write-mostly"* ]] || [[ "$output" == *"not_write_mostly"* ]]
	# the resync at full speed again (at 1000 KB/s its 64 MiB kept the VM
	# idle for most of a minute)
	echo 200000 >/proc/sys/dev/raid/speed_limit_max
	echo 500000 >/proc/sys/dev/raid/speed_limit_min
	mdadm --wait /dev/md0 || true
}

@test "status warns about a single persistent member" {
	rd_add $((64 * MiB))
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		/dev/rd0 --write-mostly "/dev/$(hdd 1)"
	mdadm --wait /dev/md0 || true
	run rdctl -j -s
	[ "$status" = 3 ]
	json_ok module,memory,disks,arrays,mirrors,warnings,status
	codes=$(json_get "' '.join(sorted(w['code'] for w in d['warnings']))")
	[[ " $codes " == *" one_persistent "* ]]
	[[ " $codes " != *" not_write_mostly "* ]]
	[[ " $codes " != *" sync_running "* ]]
}

@test "without root: a clear permission error, nothing changed" {
	rd_add $((16 * MiB))
	nocap="setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin"
	run $nocap rdctl --attach 16
	[ "$status" = 1 ]
	[[ "$output" == *root* ]]
	run $nocap rdctl --detach rd0
	[ "$status" = 1 ]
	[[ "$output" == *root* ]]
	# A real unprivileged user (setpriv above keeps uid 0): refused before
	# anything is read or run; what only reads works.
	user="setpriv --reuid=65534 --regid=65534 --clear-groups"
	run $user rdctl --attach 16
	[ "$status" = 1 ]
	[ "$output" = "rdctl: --attach needs root (run it with sudo)" ]
	run $user rdctl --detach rd0
	[ "$status" = 1 ]
	[ "$output" = "rdctl: --detach needs root (run it with sudo)" ]
	run $user rdctl --release
	[ "$status" = 1 ]
	[ "$output" = "rdctl: --release needs root (run it with sudo)" ]
	run $user rdctl --list -n -o NAME
	[ "$status" = 0 ]
	[ "$output" = rd0 ]
	[ -e /sys/block/rd0 ]
	[ ! -e /sys/block/rd1 ]
}

@test "help, version and usage errors" {
	run rdctl --help
	[ "$status" = 0 ]
	[[ "$output" == *--attach* ]]
	run rdctl --version
	[ "$status" = 0 ]
	[[ "$output" == *"$(cat "$RD_TOP/VERSION")"* ]]
	run rdctl
	[ "$status" = 2 ]
	run rdctl --bogus
	[ "$status" = 2 ]
	run rdctl --detach
	[ "$status" = 2 ]
}

@test "valgrind: rdctl attach, list, status, detach against the real module are clean" {
	# What valgrind checks is rdctl's memory, the same on every kernel: it
	# runs on Debian's 6.1; on 6.12 (30 s) and the debug kernel (100 s
	# under KASAN and TCG) it would check nothing new.
	if [[ "$(uname -r)" != 6.1.* ]]; then
		skip "rdctl's memory is checked on Debian's 6.1"
	fi
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
	$vg rdctl --attach 16
	$vg rdctl -j --list >/dev/null
	$vg rdctl -j --status >/dev/null
	$vg rdctl --detach rd0
	run $vg rdctl --detach rd0
	[ "$status" = 1 ]
}
