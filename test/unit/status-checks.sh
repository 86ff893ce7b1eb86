# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # out, err, tmp, here, utils: set by run-checks.sh
# rdctl --status for monitoring: the severity of each finding, the
# configured mirrors with or without their RAM member (and why, from the
# record of the last restore), --nagios and --prometheus, on fake trees.
# Sourced by run-checks.sh: uses its run/pass/fail/expect_*/validate/vg helpers.

st_saved="$RDCTL_SYSFS_ROOT|$RDCTL_PROC_ROOT|$RDCTL_DEV_ROOT|$RDCTL_MODULES_DIR"
sroot=$tmp/status
sconf=$tmp/status.conf
srec=$RDCTL_RUN_DIR/restore.json
export RDCTL_SYSFS_ROOT=$sroot/sys RDCTL_PROC_ROOT=$sroot/proc RDCTL_DEV_ROOT=$sroot/dev
s_uuid=79387934:aaaad032:f56c6261:de230a86

sput() {	# FILE CONTENT
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1"
}
smember() {	# NAME STATE SLOT [READS]
	local d=$sroot/sys/block/md0/md/dev-$1
	sput "$d/state" "$2"
	sput "$d/slot" "$3"
	sput "$sroot/sys/class/block/$1/stat" "${4:-100} 0 800 0 5 0 40 0 0 0 0"
}
# md0: raid1 of sdb (slot 0) and sdc (slot 1), both write-mostly, and the
# RAM member rd0 in slot 2, in sync; configured as "md0 auto"
status_tree() {
	rm -rf "$sroot" "$srec"
	local m=$sroot/sys/block/md0/md
	sput "$m/level" raid1
	sput "$m/array_state" clean
	sput "$m/raid_disks" 3
	sput "$m/degraded" 0
	sput "$m/metadata_version" 1.2
	sput "$m/uuid" 79387934-aaaa-d032-f56c-6261de230a86
	sput "$m/sync_action" idle
	sput "$m/sync_completed" none
	sput "$m/sync_speed" none
	smember sdb in_sync,write_mostly 0 7
	smember sdc in_sync,write_mostly 1 5
	smember rd0 in_sync 2 9000
	sput "$sroot/sys/block/rd0/size" 2099200
	sput "$sroot/sys/block/rd0/dev" 252:0
	sput "$sroot/sys/block/rd0/rdmirror/allocated_bytes" 1073741824
	sput "$sroot/sys/block/rd0/rdmirror/preallocated" 0
	mkdir -p "$sroot/sys/block/rd0/holders/md0"
	sput "$sroot/sys/module/rdmirror/version" "$build_id"
	sput "$sroot/proc/meminfo" "MemTotal: 16777216 kB
MemAvailable: 8388608 kB"
	sput "$sroot/proc/self/mountinfo" "22 1 8:1 / / rw - ext4 /dev/sda1 rw"
	mkdir -p "$sroot/dev"
	: >"$sroot/dev/rdmirror-control"
	printf 'md0 auto\n' >"$sconf"
}
# the RAM member gone, as after a reboot whose restore did not add it
no_ram() {
	rm -rf "$sroot/sys/block/md0/md/dev-rd0" "$sroot/sys/block/rd0"
	sput "$sroot/sys/block/md0/md/degraded" 1
}
# the record of a restore that failed on md0 with CODE and MESSAGE
record_failed() {	# CODE MESSAGE
	printf '{"restore":[{"array":"md0","uuid":"%s","rd":null,"size":null,"action":"failed","write_mostly_set":[],"error":{"code":"%s","message":"%s"},"spec":"md0","line":1}],"config_errors":[],"time":%s,"kernel":"6.1.0-test"}\n' \
		"$s_uuid" "$1" "$2" "$(date +%s)" >"$srec"
}
# the warm-up: rd0 recovering, 12.5% done at 100 MiB/s
warm_up() {
	local m=$sroot/sys/block/md0/md
	sput "$m/dev-rd0/state" spare
	sput "$m/degraded" 1
	sput "$m/sync_action" recover
	sput "$m/sync_completed" "262144 / 2097152"
	sput "$m/sync_speed" 102400
	printf '{"restore":[{"array":"md0","uuid":"%s","rd":"rd0","size":1074790400,"action":"added","write_mostly_set":[],"error":null,"spec":"md0","line":1}],"config_errors":[],"time":%s,"kernel":"6.1.0-test"}\n' \
		"$s_uuid" "$(date +%s)" >"$srec"
}
# status_is NAME JSONPATH-EXPR: a Python expression over the --json document d
json_is() {
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$out" "$2" 2>>"$err"
	then pass; else fail "$1: not ($2): $(cat "$out")"; fi
}
sev_of() {	# CODE: the severity of the first finding with CODE in the --json document $out
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(next((w["severity"] for w in d["warnings"] if w["code"]==sys.argv[2]), "none"))' "$out" "$1"
}
expect_sev() {	# NAME CODE SEVERITY
	local got
	got=$(sev_of "$2")
	if [ "$got" = "$3" ]; then pass; else fail "$1: $2 is $got, want $3: $(cat "$out")"; fi
}
nprom=0
promcheck() {	# NAME: stdout is valid Prometheus exposition text (promtool check metrics)
	nprom=$((nprom + 1))
	cp "$out" "$tmp/metrics$nprom.prom"
	if ! command -v promtool >/dev/null; then
		fail "$1: promtool is not installed (apt-get install prometheus)"
	elif promtool check metrics <"$out" >"$tmp/promtool.out" 2>&1; then pass
	else fail "$1: promtool check metrics: $(cat "$tmp/promtool.out")"; fi
}

# --- in sync: nothing to say, exit 0, OK ---
status_tree
run "status in sync" 0 --status --config "$sconf"
expect_out_has "status in sync" "md0, line 1: in sync (rd0): reads come from RAM"
expect_out_has "status in sync" "warnings: none"
run "status in sync json" 0 --status --config "$sconf" --json
validate "status in sync json" module,memory,disks,arrays,mirrors,warnings,status
json_is "status in sync json" 'd["status"]=="OK" and d["mirrors"][0]["state"]=="in_sync" and d["mirrors"][0]["uuid"]=="'$s_uuid'" and d["mirrors"][0]["configured"] and d["mirrors"][0]["line"]==1'
# the RAM share of reads: rd0 9000 against sdb 7 + sdc 5
json_is "status in sync json: reads" 'd["mirrors"][0]["ram_reads"]==9000 and d["mirrors"][0]["disk_reads"]==12 and abs(d["mirrors"][0]["ram_read_share"]-9000/9012.0)<1e-9'
run "status in sync" 0 --status --config "$sconf"
expect_out_has "status in sync: share" "in sync (rd0): reads come from RAM (99.9% of 9012 so far)"
# a RAM member that keeps no I/O statistics: its side unknown, no share
sput "$sroot/sys/block/rd0/queue/iostats" 0
run "status uncounted json" 0 --status --config "$sconf" --json
validate "status uncounted json" module,memory,disks,arrays,mirrors,warnings,status
json_is "status uncounted json" 'd["mirrors"][0]["ram_reads"] is None and d["mirrors"][0]["disk_reads"]==12 and d["mirrors"][0]["ram_read_share"] is None'
run "status uncounted" 0 --status --config "$sconf"
expect_out_has "status uncounted" "in sync (rd0): reads come from RAM"
if grep -q "so far" "$out"; then fail "status uncounted: a share without RAM counts: $(cat "$out")"; else pass; fi
rm "$sroot/sys/block/rd0/queue/iostats"
run "nagios in sync" 0 --status --nagios --config "$sconf"
if grep -qx 'RDMIRROR OK - md0 in sync | warnings=0;;;0 criticals=0;;;0 md0_sync=100.0%;;;0;100 md0_ram_bytes=1073741824B;;;0;1074790400' "$out"
then pass; else fail "nagios in sync: $(cat "$out")"; fi
run "prometheus in sync" 0 --status --prometheus --config "$sconf"
promcheck "prometheus in sync"
expect_out_has "prometheus in sync" 'rdmirror_mirror_ram_in_sync{array="md0",uuid="'$s_uuid'"} 1'
expect_out_has "prometheus in sync" 'rdmirror_mirror_reads_total{array="md0",uuid="'$s_uuid'",device="rd0",kind="ram"} 9000'
expect_out_has "prometheus in sync" 'rdmirror_mirror_reads_total{array="md0",uuid="'$s_uuid'",device="sdb",kind="persistent"} 7'
expect_out_has "prometheus in sync" "rdmirror_status 0"
expect_out_has "prometheus in sync" 'rdmirror_build_info{version="'"$build_id"'",module_version="'"$build_id"'"} 1'

# --- a module in memory that is not rdctl's (loaded before an upgrade) ---
sput "$sroot/sys/module/rdmirror/version" 0.0.9
run "module version" 3 --status --json --config "$sconf"
validate "module version" module,memory,disks,arrays,mirrors,warnings,status
expect_sev "module version" module_version WARNING
json_is "module version message" '[w["message"] for w in d["warnings"] if w["code"]=="module_version"][0].startswith("the rdmirror module in memory is version 0.0.9, rdctl is '"$build_id"' (other releases: the module is 0.0.9, rdctl '"$version"')") and "modprobe -r rdmirror" in [w["message"] for w in d["warnings"] if w["code"]=="module_version"][0]'
# one version string, another build: what comparing versions alone missed
sput "$sroot/sys/module/rdmirror/version" "$version+1-g0123456789ab"
run "module build" 3 --status --json --config "$sconf"
expect_sev "module build" module_version WARNING
json_is "module build message" '"the same release '"$version"', other builds: the module from git commit 0123456789ab, rdctl from " in [w["message"] for w in d["warnings"] if w["code"]=="module_version"][0]'
run "nagios module version" 1 --status --nagios --config "$sconf"
expect_out_has "nagios module version" "RDMIRROR WARNING"
status_tree

# --- the routine warm-up after a boot: OK, with progress and ETA; exit 0 ---
warm_up
run "status warm-up" 0 --status --config "$sconf"
expect_out_has "status warm-up" "md0, line 1: warming up (rd0): 12.5%, ETA 8s"
expect_out_has "status warm-up" "warnings: none"
expect_out_has "status warm-up" "OK       md0: recover running (12.5%, 100 MiB/s, ETA 8s): RAM member rd0 warming up"
run "status warm-up quiet" 0 --status --quiet --config "$sconf"
expect_no_out "status warm-up quiet"
run "nagios warm-up" 0 --status --nagios --config "$sconf"
if [ "$(wc -l <"$out")" -eq 1 ] && grep -q '^RDMIRROR OK - md0 warming up 12% ETA 8s | .*md0_sync=12.5%;;;0;100' "$out"
then pass; else fail "nagios warm-up: $(cat "$out")"; fi
run "status warm-up json" 0 --status --json --config "$sconf"
validate "status warm-up json" module,memory,disks,arrays,mirrors,warnings,status
expect_sev "warm-up sync_running" sync_running OK
expect_sev "warm-up degraded" degraded OK
expect_sev "warm-up ram_not_in_sync" ram_not_in_sync OK
json_is "status warm-up json" 'd["status"]=="OK" and d["mirrors"][0]["state"]=="recovering" and d["mirrors"][0]["eta_seconds"]==8 and d["mirrors"][0]["rate"]==104857600 and abs(d["mirrors"][0]["progress"]-12.5)<0.01'
run "prometheus warm-up" 0 --status --prometheus --config "$sconf"
promcheck "prometheus warm-up"
expect_out_has "prometheus warm-up" 'rdmirror_mirror_recovery_ratio{array="md0",uuid="'$s_uuid'"} 0.1250'
expect_out_has "prometheus warm-up" 'rdmirror_mirror_recovery_eta_seconds{array="md0",uuid="'$s_uuid'"} 8'
expect_out_has "prometheus warm-up" 'rdmirror_mirror_ram_member_present{array="md0",uuid="'$s_uuid'"} 1'
vg "nagios warm-up" 0 --status --nagios --config "$sconf"
vg "prometheus warm-up" 0 --status --prometheus --config "$sconf"
# md refused the warm-up's re-add: the daemon (alive) added rd0 anew and
# md recovers all of it; --status says so, at OK, and not once the daemon
# is gone or for another disk
sput "$sroot/proc/4242/comm" rdctl
printf 'pid 4242\nrd rd0\ndone 1\ntotal 1\nstarted 1\nphase full\n' >"$RDCTL_RUN_DIR/warmup-md0.state"
run "warm-up full recovery" 0 --status --json --config "$sconf"
validate "warm-up full recovery" module,memory,disks,arrays,mirrors,warnings,status
expect_sev "warm-up full recovery" warm_start_full OK
run "warm-up full recovery text" 0 --status --config "$sconf"
expect_out_has "warm-up full recovery text" "md0: md did not take RAM member rd0 back after the warm-up copy"
printf 'pid 4242\nrd rd0\ndone 1\ntotal 1\nstarted 1\nphase recover\n' >"$RDCTL_RUN_DIR/warmup-md0.state"
run "warm-up re-added" 0 --status --json --config "$sconf"
expect_sev "warm-up re-added: no full recovery" warm_start_full none
printf 'pid 4242\nrd rd0\ndone 1\ntotal 1\nstarted 1\nphase full\n' >"$RDCTL_RUN_DIR/warmup-md0.state"
rm -r "$sroot/proc/4242"
run "warm-up full, daemon gone" 0 --status --json --config "$sconf"
expect_sev "warm-up full, daemon gone" warm_start_full none
rm "$RDCTL_RUN_DIR/warmup-md0.state"
# a disk missing during the warm-up: degraded beyond the RAM slot is a WARNING
rm -rf "$sroot/sys/block/md0/md/dev-sdc"
sput "$sroot/sys/block/md0/md/degraded" 2
run "warm-up disk missing" 3 --status --json --config "$sconf"
expect_sev "warm-up disk missing" degraded WARNING
expect_sev "warm-up disk missing: still a warm-up" sync_running OK

# --- configured, no RAM member: why, and the fix ---
status_tree
no_ram
record_failed ENOMEM "not enough memory for a 1025 MiB RAM disk"
run "not restored ENOMEM" 3 --status --config "$sconf"
expect_out_has "not restored ENOMEM" "WARNING  md0 (line 1 of $sconf) has no RAM member: restore found too little memory for its RAM member: not enough memory for a 1025 MiB RAM disk; fix: free memory"
run "nagios ENOMEM" 1 --status --nagios --config "$sconf"
if grep -q '^RDMIRROR WARNING - md0 not restored (too little memory) | ' "$out"; then pass; else fail "nagios ENOMEM: $(cat "$out")"; fi
run "not restored json" 3 --status --json --config "$sconf"
validate "not restored json" module,memory,disks,arrays,mirrors,warnings,status
expect_sev "not restored json" not_restored WARNING
json_is "not restored json" 'd["status"]=="WARNING" and d["mirrors"][0]["state"]=="missing" and "memory" in d["mirrors"][0]["reason"] and d["mirrors"][0]["rd"] is None'
# the degraded count is the RAM slot's: not_restored says it all
json_is "not restored: no degraded" 'not [w for w in d["warnings"] if w["code"]=="degraded"]'
run "prometheus not restored" 0 --status --prometheus --config "$sconf"
promcheck "prometheus not restored"
expect_out_has "prometheus not restored" 'rdmirror_mirror_ram_member_present{array="md0",uuid="'$s_uuid'"} 0'
expect_out_has "prometheus not restored" 'rdmirror_finding{code="not_restored",array="md0",device="",severity="warning"} 1'
# after --release: no RAM member, but the slot and the write-mostly disks
# stay; what the packages' removal guards read (debian/rdmirror.prerm)
expect_out_has "prometheus not restored: converted" 'rdmirror_mirror_converted{array="md0",uuid="'$s_uuid'"} 1'
run "not restored: converted json" 3 --status --json --config "$sconf"
json_is "not restored: converted json" 'd["mirrors"][0]["converted"] is True'
# the slot alone, the disks no longer write-mostly
smember sdb in_sync 0 7
smember sdc in_sync 1 5
run "slot only: converted" 0 --status --prometheus --config "$sconf"
expect_out_has "slot only: converted" 'rdmirror_mirror_converted{array="md0",uuid="'$s_uuid'"} 1'
# reverted: two slots for two disks, none write-mostly
sput "$sroot/sys/block/md0/md/raid_disks" 2
sput "$sroot/sys/block/md0/md/degraded" 0
run "reverted: not converted" 0 --status --prometheus --config "$sconf"
expect_out_has "reverted: not converted" 'rdmirror_mirror_converted{array="md0",uuid="'$s_uuid'"} 0'
# write-mostly disks alone
smember sdb in_sync,write_mostly 0 7
run "write-mostly only: converted" 0 --status --prometheus --config "$sconf"
expect_out_has "write-mostly only: converted" 'rdmirror_mirror_converted{array="md0",uuid="'$s_uuid'"} 1'
status_tree
no_ram
record_failed ENOMEM "not enough memory for a 1025 MiB RAM disk"
vg "not restored" 3 --status --json --config "$sconf"
# (the message rdctl --restore records, in full: cause and fix)
record_failed EKEYREJECTED "the kernel refused the rdmirror module's signature: the kernel enforces module signatures (Secure Boot or module.sig_enforce=1) and does not trust the key the rdmirror module is signed with (or it is unsigned); fix: enrol the key DKMS signs the module with, once: mokutil --import /var/lib/dkms/mok.pub, reboot and confirm the key in the MOK manager"
run "not restored signature" 1 --status --nagios --config "$sconf"
expect_out_has "not restored signature" "md0 not restored (module refused (signature))"
run "not restored signature json" 3 --status --json --config "$sconf"
json_is "not restored signature fix" '"mokutil --import /var/lib/" in d["mirrors"][0]["fix"] and d["mirrors"][0]["fix"].endswith("; then rdctl --restore")'
# said once: the recorded message holds the same cause and fix
json_is "not restored signature said once" '[w["message"] for w in d["warnings"] if w["code"]=="not_restored"][0].count("mokutil") == 1 and [w["message"] for w in d["warnings"] if w["code"]=="not_restored"][0].count("refused the rdmirror") == 1'
# no record: restore has not run since boot
rm -f "$srec"
run "restore not run" 3 --status --config "$sconf"
expect_out_has "restore not run" "has no RAM member: restore has not run since boot; fix: rdctl --restore"
run "nagios restore not run" 1 --status --nagios --config "$sconf"
expect_out_has "nagios restore not run" "RDMIRROR WARNING - md0 not restored (restore has not run)"
# a damaged record: unknown, not a failure
echo '{"restore": [' >"$srec"
run "record damaged" 3 --status --config "$sconf"
expect_out_has "record damaged" "is not its record"
vg "record damaged" 3 --status --config "$sconf"
# the module is not installed for this kernel
rm -rf "$sroot/sys/module/rdmirror"
mkdir -p "$tmp/status-modules"
RDCTL_MODULES_DIR=$tmp/status-modules RDCTL_KERNEL_RELEASE=6.99.0-test run "module missing" 3 --status --json --config "$sconf"
validate "module missing" module,memory,disks,arrays,mirrors,warnings,status
expect_sev "module missing" module_missing WARNING
json_is "module missing reason" '"not installed for the running kernel 6.99.0-test" in d["mirrors"][0]["reason"] and "linux-headers-6.99.0-test (the headers are missing" in d["mirrors"][0]["fix"] and "dkms install rdmirror/" in d["mirrors"][0]["fix"] and "-k 6.99.0-test" in d["mirrors"][0]["fix"]'

# --- the configured array is not there ---
status_tree
printf 'md0 auto\nUUID=11111111:22222222:33333333:44444444 auto\n/dev/md/gone 1G\n' >"$sconf"
run "array missing" 3 --status --config "$sconf"
expect_out_has "array missing" "/dev/md/gone, line 3: not_assembled: the array is not assembled (not found); fix: mdadm --assemble --scan"
run "array missing json" 3 --status --json --config "$sconf"
validate "array missing json" module,memory,disks,arrays,mirrors,warnings,status
json_is "array missing json" '[m["state"] for m in d["mirrors"]]==["in_sync","not_assembled","not_assembled"] and d["mirrors"][1]["uuid"]=="11111111:22222222:33333333:44444444" and d["mirrors"][2]["array"] is None'
expect_sev "array missing json" array_missing WARNING
run "nagios array missing" 1 --status --nagios --config "$sconf"
expect_out_has "nagios array missing" "RDMIRROR WARNING - UUID=11111111:22222222:33333333:44444444 not running (not assembled), /dev/md/gone not running (not assembled)"
sput "$sroot/sys/block/rd0/rdmirror/memory_errors" 0
run "prometheus array missing" 0 --status --prometheus --config "$sconf"
promcheck "prometheus array missing"
# each finding names its configuration line's ARRAY, none array=""
expect_out_has "prometheus array missing: uuid" 'rdmirror_finding{code="array_missing",array="UUID=11111111:22222222:33333333:44444444",device="",severity="warning"} 1'
expect_out_has "prometheus array missing: name" 'rdmirror_finding{code="array_missing",array="/dev/md/gone",device="",severity="warning"} 1'
expect_out_lacks "prometheus array missing: no empty array" 'code="array_missing",array=""'
# a counter, with the unit suffix
expect_out_has "prometheus memory errors: counter" '# TYPE rdmirror_mirror_ram_memory_errors_total counter'
expect_out_has "prometheus memory errors: value" 'rdmirror_mirror_ram_memory_errors_total{array="md0",uuid="'$s_uuid'"} '
vg "array missing" 3 --status --config "$sconf"
# an array with an rd member that no line names is still shown
printf '# nothing\n' >"$sconf"
run "unconfigured" 0 --status --json --config "$sconf"
json_is "unconfigured" 'd["mirrors"][0]["configured"] is False and d["mirrors"][0]["spec"]=="/dev/md0"'
# a bad configuration line is a finding
printf 'md0 auto\nmd9 2X\n' >"$sconf"
run "config error" 3 --status --json --config "$sconf"
expect_sev "config error" config_error WARNING
# an explicit configuration that cannot be read: a failure; for a plugin UNKNOWN
run "config unreadable" 1 --status --config "$tmp/no-such.conf"
expect_err_has "config unreadable" "cannot read $tmp/no-such.conf"
run "nagios unknown" 3 --status --nagios --config "$tmp/no-such.conf"
expect_out "nagios unknown" "RDMIRROR UNKNOWN - cannot read $tmp/no-such.conf: No such file or directory"
if [ ! -s "$err" ]; then pass; else fail "nagios unknown: stderr $(cat "$err")"; fi
run "prometheus unknown" 1 --status --prometheus --config "$tmp/no-such.conf"
promcheck "prometheus unknown"
expect_out_has "prometheus unknown" "rdmirror_status 3"
vg "nagios unknown" 3 --status --nagios --config "$tmp/no-such.conf"

# --- data in RAM only ---
status_tree
smember sdb faulty 0
smember sdc faulty 1
run "no persistent" 2 --status --nagios --config "$sconf"
expect_out_has "no persistent" "RDMIRROR CRITICAL - md0 no_persistent"
run "no persistent json" 3 --status --json --config "$sconf"
expect_sev "no persistent json" no_persistent CRITICAL
json_is "no persistent json" 'd["status"]=="CRITICAL"'
run "prometheus no persistent" 0 --status --prometheus --config "$sconf"
promcheck "prometheus no persistent"
expect_out_has "prometheus no persistent" "rdmirror_status 2"
# md's "faulty" for members it keeps: state_show() prints it (and
# "blocked") for bad blocks not yet acknowledged, beside "in_sync" or
# "spare"; md has failed a member only when neither is there
status_tree
smember rd0 faulty,in_sync,blocked,write_error 2 9000
sput "$sroot/sys/block/md0/md/dev-rd0/unacknowledged_bad_blocks" "4096 8"
smember sdc faulty,in_sync,write_mostly,blocked,write_error 1 5
sput "$sroot/sys/block/md0/md/dev-sdc/unacknowledged_bad_blocks" "20480 8"
run "unacked bad blocks" 3 --status --json --config "$sconf"
json_is "unacked bad blocks: the RAM member is kept, with write errors" \
	'd["mirrors"][0]["state"]=="failed" and d["mirrors"][0]["reason"]=="RAM member rd0 is in the array with write errors"'
expect_sev "unacked bad blocks: rd0's write error" ram_write_error WARNING
json_is "unacked bad blocks: both disks still count" \
	'not [w for w in d["warnings"] if w["code"] in ("one_persistent","no_persistent","ram_not_in_sync")]'
json_is "unacked bad blocks: sdc's own bad_blocks warning" \
	'[w for w in d["warnings"] if w["code"]=="bad_blocks" and w["device"]=="sdc" and w["severity"]=="WARNING"]'
smember rd0 faulty,blocked,write_error 2 9000
run "failed, not yet settled" 3 --status --json --config "$sconf"
json_is "failed, not yet settled: rd0 is faulty" \
	'd["mirrors"][0]["state"]=="failed" and d["mirrors"][0]["reason"]=="RAM member rd0 is faulty"'
# bad blocks: one disk WARNING, the same range on both CRITICAL
status_tree
sput "$sroot/sys/block/md0/md/dev-sdb/bad_blocks" "20480 8"
run "bad blocks one disk" 1 --status --nagios --config "$sconf"
expect_out_has "bad blocks one disk" "RDMIRROR WARNING - md0/sdb bad_blocks"
run "bad blocks one disk json" 3 --status --json --config "$sconf"
validate "bad blocks one disk json" module,memory,disks,arrays,mirrors,warnings,status
expect_sev "bad blocks one disk json" bad_blocks WARNING
json_is "bad blocks one disk: no ram_only_data" 'not [w for w in d["warnings"] if w["code"]=="ram_only_data"]'
sput "$sroot/sys/block/md0/md/dev-sdc/unacknowledged_bad_blocks" "20480 16"
run "bad blocks both disks" 2 --status --nagios --config "$sconf"
expect_out_has "bad blocks both disks" "RDMIRROR CRITICAL - md0 ram_only_data"
run "bad blocks both disks text" 3 --status --config "$sconf"
expect_out_has "bad blocks both disks text" "CRITICAL md0: sectors 20480+8 (8 sectors) are recorded bad on every persistent member"
run "bad blocks both json" 3 --status --json --config "$sconf"
expect_sev "bad blocks both json" ram_only_data CRITICAL
run "prometheus bad blocks" 0 --status --prometheus --config "$sconf"
promcheck "prometheus bad blocks"
expect_out_has "prometheus bad blocks" 'rdmirror_finding{code="bad_blocks",array="md0",device="sdc",severity="warning"} 1'
vg "bad blocks" 3 --status --config "$sconf"
# the RAM member below a disk
status_tree
smember rd0 in_sync 0 9000
smember sdb in_sync,write_mostly 2 7
run "ram slot low" 1 --status --nagios --config "$sconf"
expect_out_has "ram slot low" "RDMIRROR WARNING - md0/rd0 ram_slot_low"
run "ram slot low text" 3 --status --config "$sconf"
expect_out_has "ram slot low text" "fix: rdctl --refresh /dev/md0"

# --- the module's memory limit (parameter mem_limit) ---
# limit_tree: the module's limit reached, rd0 with writes refused
limit_tree() {
	status_tree
	sput "$sroot/sys/module/rdmirror/parameters/mem_limit" 1073741824
	sput "$sroot/sys/module/rdmirror/parameters/mem_used" 1073737728
	sput "$sroot/sys/module/rdmirror/parameters/mem_refused_writes" 7
	sput "$sroot/sys/block/rd0/rdmirror/refused_writes" 7
}
limit_tree
smember rd0 faulty 2 9000
sput "$sroot/sys/block/md0/md/degraded" 1
run "mem limit faulty" 2 --status --nagios --config "$sconf"
expect_out_has "mem limit faulty" "RDMIRROR CRITICAL - md0/rd0 ram_mem_limit"
run "mem limit faulty text" 3 --status --config "$sconf"
expect_out_has "mem limit faulty text" "md0: RAM member rd0 had 7 writes refused: rdmirror's memory limit is reached (mem_limit 1 GiB, the rd disks hold 1024.0 MiB together), so md failed it and md0 runs from its disks; fix: give the rd disks room (rdctl --detach a disk not needed, or raise the limit: echo SIZE > /sys/module/rdmirror/parameters/mem_limit), then rdctl --restore"
run "mem limit json" 3 --status --json --config "$sconf"
expect_sev "mem limit json" ram_mem_limit CRITICAL
json_is "mem limit json: the module's figures" \
	'd["module"]["mem_limit"]==1073741824 and d["module"]["mem_used"]==1073737728 and d["module"]["mem_refused_writes"]==7'
json_is "mem limit json: the disk's count" 'd["disks"][0]["refused_writes"]==7'
run "mem limit prometheus" 0 --status --prometheus --config "$sconf"
promcheck "mem limit prometheus"
expect_out_has "mem limit prometheus" 'rdmirror_finding{code="ram_mem_limit",array="md0",device="rd0",severity="critical"} 1'
expect_out_has "mem limit prometheus" "rdmirror_module_mem_limit_bytes 1073741824"
expect_out_has "mem limit prometheus" "rdmirror_module_mem_used_bytes 1073737728"
expect_out_has "mem limit prometheus" "rdmirror_module_mem_refused_writes_total 7"
expect_out_has "mem limit prometheus" 'rdmirror_disk_refused_writes_total{disk="rd0"} 7'
vg "mem limit" 3 --status --config "$sconf"
# md kept the member (bad blocks recorded): --restore replaces it
limit_tree
run "mem limit kept" 3 --status --config "$sconf"
expect_out_has "mem limit kept" "md0: RAM member rd0 had 7 writes refused"
expect_out_has "mem limit kept" "md kept it with those blocks marked bad; fix: give the rd disks room"
expect_out_has "mem limit kept" "then rdctl --restore (it replaces the member)"
# a bare disk
limit_tree
rm -rf "$sroot/sys/block/md0" "$sroot/sys/block/rd0/holders/md0"
: >"$sconf"
sput "$sroot/sys/block/rd0/rdmirror/refused_writes" 1
run "mem limit bare" 3 --status --config "$sconf"
expect_out_has "mem limit bare" "rd0 had 1 write refused: rdmirror's memory limit is reached"
expect_out_has "mem limit bare" "then write it again"
# nothing refused: no finding, the figures still shown
limit_tree
sput "$sroot/sys/block/rd0/rdmirror/refused_writes" 0
run "mem limit none refused" 0 --status --nagios --config "$sconf"
expect_out_lacks "mem limit none refused" "ram_mem_limit"
# a module that does not say: null, no metric
status_tree
run "mem limit unknown json" 0 --status --json --config "$sconf"
json_is "mem limit unknown json" 'd["module"]["mem_limit"] is None and d["disks"][0]["refused_writes"] is None'
run "mem limit unknown prometheus" 0 --status --prometheus --config "$sconf"
expect_out_lacks "mem limit unknown prometheus" "rdmirror_module_mem_limit_bytes"
expect_out_lacks "mem limit unknown prometheus" "rdmirror_disk_refused_writes_total"

# --- usage ---
usage "nagios list" "--nagios goes with --status only" --list --nagios
usage "prometheus restore" "--prometheus goes with --status only" --restore --prometheus
usage "nagios prometheus" "--nagios, --prometheus, --json and --quiet cannot be used together" -s --nagios --prometheus
usage "prometheus quiet" "--nagios, --prometheus, --json and --quiet cannot be used together" -s --prometheus -q

# --- the alert rules and their unit test ---
if command -v promtool >/dev/null; then
	if promtool check rules "$utils/../scripts/rdmirror-alerts.yml" >"$tmp/promtool.out" 2>&1; then pass
	else fail "promtool check rules: $(cat "$tmp/promtool.out")"; fi
	if (cd "$utils/../test/monitoring" && promtool test rules alerts-test.yml) >"$tmp/promtool.out" 2>&1; then pass
	else fail "promtool test rules: $(cat "$tmp/promtool.out")"; fi
else
	fail "promtool is not installed (apt-get install prometheus): the alert rules are not checked"
fi

rm -f "$srec"
IFS='|' read -r RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT RDCTL_MODULES_DIR <<<"$st_saved"
export RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT RDCTL_MODULES_DIR
