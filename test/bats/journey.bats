#!/usr/bin/env bats
# rdctl --create, --convert, --revert: the user's way to a RAM mirror and
# back, on the two persistent-member stand-ins, with data checked by
# checksums before and after every step.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"

setup() {
	rd_common_setup
	CONF=$T/rdmirror.conf
	# (another mirror's line would make --restore wait 30 s for it: the host
	# tests check that other mirrors' lines are kept)
	printf '# kept byte for byte\n  # ARRAY  SIZE\t\n' >"$CONF"
	CONF_BEFORE=$(cat "$CONF")
	H1=$(hdd 1)
	H2=$(hdd 2)
}
# This file puts file systems on the bare stand-ins: wipe them after each
# test, or the next --create would (rightly) refuse them.
teardown() {
	local rc=0
	# a test that failed while its writer ran: stop the writer, or the
	# mount stays busy and nothing after it can be cleaned up
	if [[ -n "${WRITER:-}" ]]; then
		touch "$T/stop"
		kill "$WRITER" 2>/dev/null || true
		wait "$WRITER" 2>/dev/null || true
	fi
	rd_common_teardown || rc=$?
	wipefs -qa "/dev/$H1" "/dev/$H2" >/dev/null 2>&1 || true
	return "$rc"
}


# validate KEY: $output is one JSON document with top-level KEY, valid
# against the schema
validate() {
	echo "$output" >"$T/doc.json"
	python3 "$RD_TOP/test/unit/validate-json.py" "$RD_TOP/utils/rdctl.schema.json" "$1" "$T/doc.json"
}

# Writes completed by a disk: unchanged means nothing on it changed.
disk_writes() {
	local stat
	read -ra stat <"/sys/block/$1/stat"
	echo "${stat[4]}"
}

# Files with random data on the mounted array, and their checksums.
fill_files() {
	local i
	for i in $(seq "$2"); do head -c $((2 * MiB)) /dev/urandom >"$1/f$i"; done
	(cd "$1" && sha256sum f*) >"$T/sums"
}

check_files() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	(cd "$1" && sha256sum -c --quiet "$T/sums")
}

# An in-sync RAID1 of both stand-ins (blank, so --assume-clean is exact),
# ext4 on it, mounted on /tmp/rdtest-j with N files of 2 MiB.
make_raid1() {
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		--assume-clean --bitmap=internal "/dev/$H1" "/dev/$H2"
	mkfs.ext4 -q /dev/md0
	mkdir -p /tmp/rdtest-j
	mount /dev/md0 /tmp/rdtest-j
	fill_files /tmp/rdtest-j "$1"
}

# Sectors written to both stand-ins, from their stat.
hdd_write_sectors() {
	local d stat total=0
	for d in $H1 $H2; do
		read -ra stat <"/sys/block/$d/stat"
		total=$((total + stat[6]))
	done
	echo "$total"
}

@test "--create on two blank disks: RAM member in sync from one read, disks write-mostly, config line; files survive --release/--restore" {
	w_before=$(hdd_write_sectors)
	run rdctl --create /dev/md0 "/dev/$H1" "/dev/$H2" --config "$CONF" --wait
	echo "$output"
	[ "$status" -eq 0 ]
	# every step is printed as the command it is
	[[ "$output" == *"mdadm --create /dev/md0 --run --level=1 --metadata=1.2 --raid-devices=3 --assume-clean --bitmap=internal --bitmap-chunk=128M --write-mostly /dev/$H1 /dev/$H2 missing"* ]]
	# the RAM member comes in by the warm start (warmup.bats checks the
	# writes made during its copy)
	[[ "$output" == *"# warm start: copy /dev/md0 into rd0"* ]]
	[[ "$output" == *"Created md0: rd0 ("*") by a warm start"* ]]
	[ "$(md_attr raid_disks)" = 3 ]
	[ "$(md_attr degraded)" = 0 ]
	[ "$(md_attr sync_action)" = idle ]
	grep -qx in_sync "/sys/block/md0/md/dev-rd0/state"
	grep -q write_mostly "/sys/block/md0/md/dev-$H1/state"
	grep -q write_mostly "/sys/block/md0/md/dev-$H2/state"
	# the disks did not resync each other: what they wrote is metadata
	# (superblocks, bitmap), far less than one disk's 256 MiB
	w_after=$(hdd_write_sectors)
	echo "written to the disks during create: $(((w_after - w_before) / 2)) KiB"
	[ $((w_after - w_before)) -lt $((16 * MiB / 512)) ]
	# the RAM member holds what md copied into it: every page of the data area
	alloc=$(rd_allocated rd0)
	echo "rd0 allocated $alloc of $(cat /sys/block/rd0/size) sectors"
	[ "$alloc" -ge $((240 * MiB)) ]
	uuid=$(mdadm --detail --export /dev/md0 | sed -n 's/^MD_UUID=//p')
	[ -n "$uuid" ]
	# the line is added, everything else kept byte for byte
	[ "$(head -n 2 "$CONF")" = "$CONF_BEFORE" ]
	[ "$(tail -n 1 "$CONF")" = "UUID=$uuid auto" ]
	[ "$(wc -l <"$CONF")" -eq 3 ]

	mkfs.ext4 -q /dev/md0
	mkdir -p /tmp/rdtest-j
	mount /dev/md0 /tmp/rdtest-j
	fill_files /tmp/rdtest-j 20
	umount /tmp/rdtest-j

	run rdctl --release
	echo "$output"
	[ "$status" -eq 0 ]
	[ ! -e /sys/block/rd0 ]
	[ "$(md_attr degraded)" = 1 ]
	run rdctl --restore --config "$CONF" --wait
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx in_sync /sys/block/md0/md/dev-rd0/state
	mount /dev/md0 /tmp/rdtest-j
	check_files /tmp/rdtest-j
}

@test "--create refuses a disk with a file system, and changes nothing on it" {
	mkfs.ext4 -q "/dev/$H1"
	sync
	before=$(disk_writes "$H1")
	before2=$(disk_writes "$H2")
	run rdctl --create /dev/md0 "/dev/$H1" "/dev/$H2" --config "$CONF"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == "rdctl: /dev/$H1 is not blank: wipefs finds ext4 at 0x438; rdctl --create would destroy it."* ]]
	[ "$(disk_writes "$H1")" = "$before" ]
	[ "$(disk_writes "$H2")" = "$before2" ]
	[ "$(blkid -p -o value -s TYPE "/dev/$H1")" = ext4 ]
	[ ! -e /sys/block/md0/md ]
	[ ! -e /sys/block/rd0 ]
	[ "$(cat "$CONF")" = "$CONF_BEFORE" ]
}

@test "--create refuses a mounted disk, an md member, an rd disk, a disk given twice, an existing array" {
	mkfs.ext4 -q "/dev/$H1"
	mkdir -p /tmp/rdtest-j
	mount "/dev/$H1" /tmp/rdtest-j
	run rdctl --create /dev/md0 "/dev/$H1" "/dev/$H2" --force
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "rdctl: /dev/$H1 is in use: it is mounted on /tmp/rdtest-j" ]
	umount /tmp/rdtest-j

	run rdctl --create /dev/md0 "/dev/$H2" "/dev/$H2"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"/dev/$H2 and /dev/$H2 are the same disk ($H2): give each disk once" ]]

	rd_add $((16 * MiB))
	run rdctl --create /dev/md0 /dev/rd0 "/dev/$H2"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == "rdctl: /dev/rd0 is an rd disk:"* ]]
	rd_remove rd0

	mdadm --create /dev/md1 --run --level=1 --raid-devices=2 --metadata=1.2 \
		--assume-clean "/dev/$H2" missing
	run rdctl --create /dev/md0 "/dev/$H2"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "rdctl: /dev/$H2 is in use: it is held by md1 (see /sys/class/block/$H2/holders)" ]
	run rdctl --create /dev/md1 "/dev/$H1" --force
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == "rdctl: /dev/md1 exists already: rdctl --convert /dev/md1 gives"* ]]
	[ ! -e /sys/block/rd0 ]
}

@test "--create --force over a disk that held data resyncs it: no --assume-clean" {
	mkfs.ext4 -q "/dev/$H1"
	run rdctl --create /dev/md0 "/dev/$H1" "/dev/$H2" --dry-run --force --config "$CONF"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"mdadm --create /dev/md0 --run --level=1 --metadata=1.2 --raid-devices=3 --bitmap=internal"* ]]
	[[ "$output" != *"--raid-devices=3 --assume-clean"* ]]
	[[ "$output" == *"md resyncs them to each other (no --assume-clean)"* ]]
}

@test "--dry-run prints the plan and changes nothing (create, convert, revert)" {
	before=$(disk_writes "$H1")
	run rdctl --create /dev/md0 "/dev/$H1" "/dev/$H2" --dry-run --config "$CONF"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"--assume-clean --bitmap=internal --bitmap-chunk=128M --write-mostly /dev/$H1 /dev/$H2 missing"* ]]
	[[ "$output" == *"# warm start: copy /dev/md0 into the RAM disk, then mdadm --re-add it"* ]]
	# without a bitmap md cannot know what the copy missed: md's recovery
	run rdctl --create /dev/md0 "/dev/$H1" "/dev/$H2" --dry-run --bitmap none --config "$CONF"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"mdadm /dev/md0 --add /dev/rdN"* ]]
	[[ "$output" != *"# warm start"* ]]
	run rdctl --create /dev/md0 "/dev/$H1" "/dev/$H2" --dry-run --json
	[ "$status" -eq 0 ]
	validate create
	[ "$(disk_writes "$H1")" = "$before" ]
	[ ! -e /sys/block/md0/md ]
	[ ! -e /sys/block/rd0 ]
	[ "$(cat "$CONF")" = "$CONF_BEFORE" ]

	make_raid1 2
	run rdctl --convert /dev/md0 --dry-run --config "$CONF" --json
	echo "$output"
	[ "$status" -eq 0 ]
	validate convert
	[[ "$output" == *'"mdadm --grow /dev/md0 --raid-devices=3 --force"'* ]]
	[ "$(md_attr raid_disks)" = 2 ]
	# an array without a bitmap gets one first: the warm start needs it
	mdadm --grow --bitmap=none /dev/md0
	run rdctl --convert /dev/md0 --dry-run --config "$CONF"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"mdadm --grow /dev/md0 --bitmap=internal --bitmap-chunk=128M"*"--raid-devices=3"*"# warm start"* ]]
	[[ "$output" == *"internal write-intent bitmap is added to md0"* ]]
	[ "$(md_attr bitmap/location)" = none ]
	[ ! -e /sys/block/rd0 ]
	[ "$(cat "$CONF")" = "$CONF_BEFORE" ]
	run rdctl --revert /dev/md0 --dry-run
	[ "$status" -eq 1 ]
	[ "$output" = "rdctl: /dev/md0 has no RAM member: nothing to revert" ]
}

@test "--convert of a mounted RAID1 in use keeps every byte, reads then come from RAM; --revert gives it back" {
	make_raid1 20
	# a writer that keeps the file system busy through the conversion
	(
		i=0
		while [ ! -e "$T/stop" ]; do
			head -c $((256 * 1024)) /dev/urandom >"/tmp/rdtest-j/w$((i % 8))"
			i=$((i + 1))
		done
	) &
	WRITER=$!
	run rdctl --convert /dev/md0 --config "$CONF" --wait
	echo "$output"
	[ "$status" -eq 0 ]
	# the warm start: the new slot empty, then rdctl copies the array in
	[[ "$output" == *"mdadm --grow /dev/md0 --raid-devices=3"*"# warm start: copy /dev/md0 into rd0"* ]]
	[[ "$output" == *"the disks are write-mostly once it is in sync"* ]]
	touch "$T/stop"
	wait "$WRITER"
	WRITER=
	check_files /tmp/rdtest-j
	(cd /tmp/rdtest-j && sha256sum w*) >"$T/wsums"
	echo "md0: raid_disks $(md_attr raid_disks), degraded $(md_attr degraded), sync $(md_attr sync_action)"
	cat /proc/mdstat
	[ "$(md_attr raid_disks)" = 3 ]
	[ "$(md_attr degraded)" = 0 ]
	grep -qx in_sync /sys/block/md0/md/dev-rd0/state
	grep -q write_mostly "/sys/block/md0/md/dev-$H1/state"
	grep -q write_mostly "/sys/block/md0/md/dev-$H2/state"
	uuid=$(mdadm --detail --export /dev/md0 | sed -n 's/^MD_UUID=//p')
	[ "$(tail -n 1 "$CONF")" = "UUID=$uuid auto" ]

	# random reads of written data: served by rd0, the disks do not move
	echo 3 >/proc/sys/vm/drop_caches
	# (md0 counts them; rd disks keep no statistics by default)
	r1=$(disk_reads "$H1") r2=$(disk_reads "$H2") rm=$(disk_reads md0)
	fio --name=rr --filename=/dev/md0 --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --number_ios=2000 --size=200M --output-format=terse >/dev/null
	echo "reads: md0 +$(($(disk_reads md0) - rm)), $H1 +$(($(disk_reads "$H1") - r1)), $H2 +$(($(disk_reads "$H2") - r2))"
	[ "$(disk_reads "$H1")" = "$r1" ]
	[ "$(disk_reads "$H2")" = "$r2" ]
	[ $(($(disk_reads md0) - rm)) -ge 2000 ]

	run rdctl --revert /dev/md0 --config "$CONF"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"mdadm /dev/md0 --fail /dev/rd0 --remove /dev/rd0"* ]]
	[[ "$output" == *"mdadm --grow /dev/md0 --raid-devices=2"* ]]
	[ "$(md_attr raid_disks)" = 2 ]
	[ "$(md_attr degraded)" = 0 ]
	[ ! -e /sys/block/rd0 ]
	run grep -q write_mostly "/sys/block/md0/md/dev-$H1/state"
	[ "$status" -eq 1 ]
	run grep -q write_mostly "/sys/block/md0/md/dev-$H2/state"
	[ "$status" -eq 1 ]
	[ "$(cat "$CONF")" = "$CONF_BEFORE" ]
	check_files /tmp/rdtest-j
	(cd /tmp/rdtest-j && sha256sum -c --quiet "$T/wsums")
	# and on the disks alone, after a restart of the array
	umount /tmp/rdtest-j
	mdadm --stop /dev/md0
	mdadm --assemble /dev/md0 "/dev/$H1" "/dev/$H2"
	mount /dev/md0 /tmp/rdtest-j
	check_files /tmp/rdtest-j
}

@test "--convert refuses a degraded array, a running resync, an array with a RAM member, a RAM size beyond memory" {
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		--assume-clean "/dev/$H1" missing
	run rdctl --convert /dev/md0
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "rdctl: /dev/md0 is degraded (1 member missing): repair it before adding a RAM member" ]
	md_stop_zero /dev/md0 "/dev/$H1"

	# a resync held back so that it is still running
	echo 1 >/proc/sys/dev/raid/speed_limit_min
	echo 1000 >/proc/sys/dev/raid/speed_limit_max
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		"/dev/$H1" "/dev/$H2"
	run rdctl --convert /dev/md0
	echo 500000 >/proc/sys/dev/raid/speed_limit_min
	echo 2000000 >/proc/sys/dev/raid/speed_limit_max
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "rdctl: /dev/md0 is busy with a resync: wait until it ends (mdadm --wait /dev/md0)" ]
	[ "$(md_attr raid_disks)" = 2 ]
	mdadm --wait /dev/md0 || true

	run rdctl --convert /dev/md0 --size 64G
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == "rdctl: the RAM member needs 65536 MiB, more than the available memory"* ]]
	[ ! -e /sys/block/rd0 ]

	run rdctl --convert /dev/md0 --size 1M
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == "rdctl: --size 1 MiB is smaller than the "*" a member of /dev/md0 needs: use --size auto" ]]

	run rdctl --convert /dev/md0 --config "$CONF" --json
	[ "$status" -eq 0 ]
	validate convert
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["convert"]; sys.exit(d["rd"] != "rd0" or d["dry_run"])' "$T/doc.json"
	# not in the configuration given: a RAM mirror of someone else's
	: >"$T/other.conf"
	run rdctl --convert /dev/md0 --config "$T/other.conf"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == "rdctl: /dev/md0 has a RAM member already (rd0, "* ]]
	[ ! -e /sys/block/rd1 ]
	# in it: finished (or already whole) as the restore does, nothing added
	run rdctl --convert /dev/md0 --config "$CONF"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"finishing an interrupted --convert"* ]]
	[[ "$output" == *"md0: already restored (rd0, "* ]]
	[ ! -e /sys/block/rd1 ]
}
