#!/usr/bin/env bats
# A disk in use cannot be removed, shrunk or emptied; nothing is lost.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"

setup() { rd_common_setup; }
teardown() { rd_common_teardown; }

# refuse_all rdN: remove, shrink and free are all EBUSY; size unchanged.
refuse_all() {
	local size
	size=$(blockdev --getsize64 "/dev/$1")
	run rd-ioctl remove index="${1#rd}"
	[ "$output" = EBUSY ] || { echo "remove: $output"; return 1; }
	run rd-ioctl resize index="${1#rd}" size=$((size / 2))
	[ "$output" = EBUSY ] || { echo "shrink: $output"; return 1; }
	run rd-ioctl free index="${1#rd}"
	[ "$output" = EBUSY ] || { echo "free: $output"; return 1; }
	[ "$(blockdev --getsize64 "/dev/$1")" = "$size" ]
	[ -e "/sys/block/$1" ]
}

@test "open file descriptor: EBUSY, data intact, grow still allowed" {
	rd_add $((16 * MiB))
	head -c $((16 * MiB)) /dev/urandom >"$T/data"
	dd if="$T/data" of=/dev/rd0 bs=1M oflag=direct status=none
	exec 8</dev/rd0
	refuse_all rd0
	rd-ioctl resize index=0 size=$((32 * MiB))
	exec 8<&-
	cmp -n $((16 * MiB)) /dev/rd0 "$T/data"
	[ "$(blockdev --getsize64 /dev/rd0)" = $((32 * MiB)) ]
	rd_remove rd0
}

@test "mounted file system: EBUSY, files intact" {
	rd_add $((64 * MiB))
	mkfs.ext4 -q /dev/rd0
	mkdir -p /tmp/rdtest-mnt
	mount /dev/rd0 /tmp/rdtest-mnt
	head -c $((8 * MiB)) /dev/urandom >/tmp/rdtest-mnt/f
	sum=$(sha256sum </tmp/rdtest-mnt/f)
	sync
	refuse_all rd0
	umount /tmp/rdtest-mnt
	mount /dev/rd0 /tmp/rdtest-mnt
	[ "$(sha256sum </tmp/rdtest-mnt/f)" = "$sum" ]
	umount /tmp/rdtest-mnt
	fsck.ext4 -fn /dev/rd0
}

@test "md member: EBUSY, array and data intact" {
	rd_add $((64 * MiB))
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		/dev/rd0 --write-mostly "/dev/$(hdd 1)"
	mdadm --wait /dev/md0 || true
	head -c $((16 * MiB)) /dev/urandom >"$T/data"
	dd if="$T/data" of=/dev/md0 bs=1M oflag=direct status=none
	refuse_all rd0
	[ "$(cat /sys/block/md0/md/degraded)" = 0 ]
	cmp -n $((16 * MiB)) /dev/md0 "$T/data"
	mdadm --stop /dev/md0
	rd_remove rd0
}

@test "a removal racing opens never leaves an open, half-removed disk" {
	local rounds=10
	! rd_debug_kernel || rounds=4
	for _ in $(seq "$rounds"); do
		rd_add $((4 * MiB)) >/dev/null
		( for _ in $(seq 200); do exec 9</dev/rd0 2>/dev/null || break; exec 9<&-; done ) &
		opener=$!
		rd_remove rd0
		wait "$opener" || true
		[ ! -e /sys/block/rd0 ]
	done
}
