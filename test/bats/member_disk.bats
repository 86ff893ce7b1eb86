#!/usr/bin/env bats
# A local disk as the mirror's fast member (rdctl --member, member=PATH:
# utils/mirror/member.h, restore_disk.h): qemu's NVMe device (test/vm/run,
# serial rdtest-nvme) in the RAM member's place. --convert and --create
# fill it by the warm copy with writes running; each boot state --restore
# tells apart (kept, blank, foreign, absent, then a blank replacement) is
# made within one boot by stopping the array and assembling it from its
# disks alone. Each test checks the data it serves and md's check.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"
# shellcheck source=test/bats/warmup-helpers.bash
. "$BATS_TEST_DIRNAME/warmup-helpers.bash"

# (warmup-helpers.bash's setup and teardown, and the NVMe disk's)
setup() {
	warm_setup
	find_nvme
	wipefs -qa "$NV"
}
teardown() {
	local w rc=0
	for w in "$RDCTL_RUN_DIR"/warmup-*.state; do
		if [ -e "$w" ]; then kill "$(sed -n 's/^pid //p' "$w")" 2>/dev/null || true; fi
	done
	md_speeds "${SPEEDS_WERE[@]}"
	rd_mirror_teardown || rc=$?
	# (an absent test's disk back first)
	[ -e "$NV" ] || { echo 1 >/sys/bus/pci/rescan; udev_settle; }
	find_nvme && wipefs -qa "$NV" >/dev/null 2>&1
	return "$rc"
}

# NV: the NVMe disk's stable name, NVK its kernel name (nvme0n1); up to 10 s
find_nvme() {
	local p
	for _ in $(seq 50); do
		for p in /dev/disk/by-id/nvme-*rdtest-nvme; do
			if [ -b "$p" ]; then
				NV=$p
				NVK=$(basename "$(readlink -f "$p")")
				return 0
			fi
		done
		sleep 0.2
	done
	echo "no /dev/disk/by-id/nvme-*rdtest-nvme: is test/vm/run's NVMe device there?" >&2
	ls -l /dev/disk/by-id >&2
	return 1
}

# the NVMe member's data area and $H1's the same, byte for byte
nvme_same() { same_as_disk "$NVK"; }

# write_during_nvme_copy: write_during_copy's, with the NVMe disk's I/O counted
write_during_nvme_copy() {
	wait_held
	spread
	count_io "$NVK"
	scribble 8 4
}

# stop_others: every md array but md0, and what udev assembled of it
# (mdadm -I holds a member in an inactive array)
stop_others() {
	local m
	udev_settle
	for m in /sys/block/md*; do
		if [ -e "$m" ] && [ "${m##*/}" != md0 ]; then mdadm --stop "/dev/${m##*/}" >/dev/null 2>&1 || true; fi
	done
	udev_settle
}

# md0 from $H1 and $H2 only, as a boot that came up without its fast
# member: stopped, anything udev assembled meanwhile stopped too
without_member() {
	mdadm --stop /dev/md0
	stop_others
	mdadm --stop /dev/md0 >/dev/null 2>&1 || true
	mdadm --assemble --run /dev/md0 "/dev/$H1" "/dev/$H2"
	[ ! -e "/sys/block/md0/md/dev-$NVK" ]
}

# an in-sync mirror md0 of $H1 and $H2 whose fast member is the NVMe disk
nvme_mirror() {
	fill_disks
	run rdctl --create /dev/md0 "/dev/$H1" "/dev/$H2" --member "$NV" --config "$CONF" --wait
	echo "create: $output"
	[ "$status" -eq 0 ]
	[ "$(md_attr "dev-$NVK/state")" = in_sync ]
	[ "$(md_attr "dev-$NVK/slot")" = 2 ]
	wm_both
}

@test "--convert --member: refusals; the NVMe disk filled by the warm copy, writes during it recovered; --refresh, --revert" {
	fill_disks
	mdadm --create /dev/md0 --run --level=1 --metadata=1.2 --raid-devices=2 --assume-clean \
		--bitmap=internal --bitmap-chunk=128M "/dev/$H1" "/dev/$H2"
	# a kernel name: refused, with the stable name, --force or not
	run rdctl --convert /dev/md0 --member "/dev/$NVK" --force --config "$CONF"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"a kernel name can name another disk after a reboot"*"$NV"* ]]
	# not blank: refused, nothing written
	mkfs.ext4 -q -F "$NV"
	run rdctl --convert /dev/md0 --member "$NV" --config "$CONF"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"is not blank: wipefs finds ext4"* ]]
	[ "$(blkid -o value -s TYPE "$NV")" = ext4 ]
	[ ! -s "$CONF" ]
	wipefs -qa "$NV"
	touch "$T/hold"
	run rdctl --convert /dev/md0 --member "$NV" --config "$CONF"
	echo "convert: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warm start"* ]]
	grep -Eq "^UUID=[0-9a-f:]+ auto member=$NV\$" "$CONF"
	write_during_nvme_copy
	want=$(md_sum)
	warm_finish "$NVK" "$want"
	run rdctl --status --json --config "$CONF"
	[ "$(jq -r --arg n "$NVK" '.arrays[0].members[] | select(.name == $n) | .kind' <<<"$output")" = disk ]
	# the mirror's rd is the disk's kernel name: valid against the schema
	echo "$output" >"$BATS_TEST_TMPDIR/status.json"
	python3 "$RD_TOP/test/unit/validate-json.py" "$RD_TOP/utils/rdctl.schema.json" - "$BATS_TEST_TMPDIR/status.json"
	# --refresh: the same disk copied afresh into the highest slot
	run rdctl --refresh /dev/md0 --config "$CONF" --wait --timeout 300
	echo "refresh: $output"
	[ "$status" -eq 0 ]
	wait_idle
	[ "$(md_attr "dev-$NVK/state")" = in_sync ]
	[ "$(md_attr "dev-$NVK/slot")" = 2 ]
	wm_both
	[ "$(md_sum)" = "$want" ]
	nvme_same
	md_check_clean
	# --revert: out of the array, its data left, no RAM freed
	run rdctl --revert /dev/md0 --config "$CONF"
	echo "revert: $output"
	[ "$status" -eq 0 ]
	[ ! -e "/sys/block/md0/md/dev-$NVK" ]
	[ -z "$(grep member= "$CONF" || true)" ]
	[[ "$(blkid -o value -s TYPE "$NV")" == linux_raid_member ]]
}

@test "boot states of an NVMe member: kept re-added, blank filled, foreign never written, absent warned, its replacement filled" {
	local size sum
	nvme_mirror
	size=$(blockdev --getsize64 /dev/md0)
	same_as_disk "$NVK"
	wait_clean
	# kept: its data and this array's superblock; md takes it back through
	# the bitmap, with writes running during the re-add
	without_member
	scribble 8 4
	count_io "$NVK"
	scribble 40 4 &
	run rdctl --restore --config "$CONF" --wait --timeout 300
	wait $!
	echo "restore (kept): $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"re-added"* ]]
	wait_idle
	[ "$(md_attr "dev-$NVK/state")" = in_sync ]
	echo "$NVK written by the re-add: $(rd_written "$NVK") of $size bytes"
	[ "$(rd_written "$NVK")" -lt "$size" ]
	nvme_same
	md_check_clean
	# blank: the cloud wiped it; the warm copy fills it, writes during the copy recovered
	without_member
	dd if=/dev/zero of="$NV" bs=1M count=4 oflag=direct status=none
	wipefs -qa "$NV"
	touch "$T/hold"
	run rdctl --restore --config "$CONF"
	echo "restore (blank): $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warm start: copying md0"* ]]
	write_during_nvme_copy
	want=$(md_sum)
	warm_finish "$NVK" "$want"
	# foreign: another array's superblock, then a file system: never written, CRITICAL
	without_member
	mdadm --create /dev/md9 --run --level=1 --metadata=1.2 --raid-devices=2 "$NV" missing
	mdadm --stop /dev/md9
	stop_others
	for what in linux_raid_member ext4; do
		[ "$what" = linux_raid_member ] || { mkfs.ext4 -q -F "$NV"; stop_others; }
		sum=$(rd-sum "$NV")
		run rdctl --restore --config "$CONF"
		echo "restore (foreign $what): $output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"never written"*"$what"* ]]
		[ "$(rd-sum "$NV")" = "$sum" ]
		[ ! -e "/sys/block/md0/md/dev-$NVK" ]
		run rdctl --status --json --config "$CONF"
		[ "$(jq -r '.warnings[] | select(.code == "member_foreign") | .severity' <<<"$output")" = CRITICAL ]
	done
	# absent: the array runs from its disks, a warning with the command
	# (the PCI function removed: delete_controller is for fabrics only;
	# the teardown's rescan brings it back)
	echo 1 >"/sys/block/$NVK/device/device/remove"
	udev_settle
	[ ! -e "$NV" ]
	run rdctl --restore --config "$CONF"
	echo "restore (absent): $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"member disk absent"*"rdctl --restore"* ]]
	run rdctl --status --json --config "$CONF"
	[ "$(jq -r '.warnings[] | select(.code == "member_absent") | .severity' <<<"$output")" = WARNING ]
	[ "$(md_sum)" = "$want" ]
	# a blank replacement at the absent path later (the PCI function back,
	# the foreign file system wiped): --restore fills it by the warm copy,
	# writes during the copy recovered; the warning gone
	echo 1 >/sys/bus/pci/rescan
	udev_settle
	find_nvme
	# back, before any restore: --status says so, not a failed restore
	run rdctl --status --config "$CONF"
	echo "status (back): $output"
	[[ "$output" == *"was absent when the last restore ran"*"is there now"* ]]
	[[ "$output" != *"restore failed"* ]]
	run rdctl --status --json --config "$CONF"
	[ "$(jq -r '.warnings[] | select(.array == "md0" and .code == "not_restored") | .severity' <<<"$output")" = WARNING ]
	wipefs -qa "$NV"
	stop_others
	touch "$T/hold"
	run rdctl --restore --config "$CONF"
	echo "restore (replacement): $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warm start: copying md0"* ]]
	write_during_nvme_copy
	want=$(md_sum)
	warm_finish "$NVK" "$want"
	run rdctl --status --json --config "$CONF"
	echo "$output"
	[ "$(jq -r --arg n "$NVK" '.mirrors[] | select(.array == "md0") | .rd + " " + .state' <<<"$output")" = "$NVK in_sync" ]
	[ "$(jq '[.warnings[] | select(.code | startswith("member_"))] | length' <<<"$output")" = 0 ]
}
