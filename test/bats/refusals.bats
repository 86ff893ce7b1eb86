#!/usr/bin/env bats
# The control device's refusals: every malformed request gets its errno,
# and nothing is created. Run on Debian's kernels (make check: 6.1 and
# 6.12); on the debug kernel the ioctl fuzzer (ioctl-fuzz.bats) sends the
# same requests and thousands more through the same paths under KASAN,
# lockdep and kmemleak.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"

setup() { rd_common_setup; }
teardown() { rd_common_teardown; }

@test "add refuses size 0, unaligned sizes and sizes above RAM" {
	run rd-ioctl add size=0
	[ "$status" = 1 ]
	[ "$output" = EINVAL ]
	for s in 512 4095 4097 $((MiB + 512)); do
		run rd-ioctl add size=$s
		[ "$status" = 1 ]
		[ "$output" = EINVAL ]
	done
	ram=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024))
	run rd-ioctl add size=$(((ram / 4096 + 1024) * 4096))
	[ "$status" = 1 ]
	[ "$output" = ENOMEM ]
	run rd-ioctl add size=$((1 << 62))
	[ "$output" = ENOMEM ]
	run rd-ioctl add size=18446744073709547520
	[ "$output" = ENOMEM ]
	[ ! -e /sys/block/rd0 ]
}

@test "add refuses unknown flags, a wrong version and non-zero reserved or out fields" {
	for args in "flags=4" "flags=0x80000000" "version=0" "version=2" \
		"index=3" "comp=1" "mem_limit=1" "reserved=1"; do
		run rd-ioctl add size=$MiB $args
		[ "$status" = 1 ] || { echo "accepted: $args"; false; }
		[ "$output" = EINVAL ] || { echo "$args: $output"; false; }
	done
	[ ! -e /sys/block/rd0 ]
}

@test "remove, resize and free refuse unknown disks, wrong versions, reserved fields" {
	for op in remove free; do
		run rd-ioctl $op index=0
		[ "$output" = ENODEV ]
		run rd-ioctl $op index=4294967295
		[ "$output" = ENODEV ]
	done
	run rd-ioctl resize index=0 size=$MiB
	[ "$output" = ENODEV ]
	rd_add $MiB
	for op in remove free; do
		run rd-ioctl $op index=0 version=7
		[ "$output" = EINVAL ]
		run rd-ioctl $op index=0 reserved=1
		[ "$output" = EINVAL ]
	done
	run rd-ioctl resize index=0 size=$((2 * MiB)) reserved=1
	[ "$output" = EINVAL ]
	run rd-ioctl resize index=0 size=0
	[ "$output" = EINVAL ]
	run rd-ioctl resize index=0 size=6000
	[ "$output" = EINVAL ]
	run rd-ioctl resize index=0 size=$((1 << 62))
	[ "$output" = ENOMEM ]
	[ "$(cat /sys/block/rd0/size)" = $((MiB / 512)) ]
	[ -e /sys/block/rd0 ]
}

@test "unknown ioctl is ENOTTY; without CAP_SYS_ADMIN every ioctl is EPERM" {
	run rd-ioctl bogus
	[ "$output" = ENOTTY ]
	rd_add $MiB
	nocap="setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin"
	# not a request of this device: ENOTTY whoever asks (was EPERM)
	run $nocap rd-ioctl bogus
	[ "$output" = ENOTTY ]
	run $nocap rd-ioctl add size=$MiB
	[ "$output" = EPERM ]
	run $nocap rd-ioctl remove index=0
	[ "$output" = EPERM ]
	run $nocap rd-ioctl resize index=0 size=$((2 * MiB))
	[ "$output" = EPERM ]
	run $nocap rd-ioctl free index=0
	[ "$output" = EPERM ]
	# A real unprivileged user (setpriv above keeps uid 0): the control
	# device, root's alone, does not open...
	user="setpriv --reuid=65534 --regid=65534 --clear-groups"
	run $user rd-ioctl add size=$MiB
	[ "$output" = EACCES ]
	# ...and with a descriptor root opened for it, every ioctl is EPERM.
	exec 7<>/dev/rdmirror-control
	for req in "add size=$MiB" "remove index=0" "resize index=0 size=$((2 * MiB))" "free index=0"; do
		# shellcheck disable=SC2086 # the request is words
		run env RD_CONTROL_FD=7 $user rd-ioctl $req
		echo "$req: $output"
		[ "$output" = EPERM ]
	done
	exec 7>&-
	[ -e /sys/block/rd0 ]
	[ ! -e /sys/block/rd1 ]
}
