# shellcheck shell=bash disable=SC2154
# The bench guests' common parts (test/bench/guest, test/bench/ab-guest),
# sourced. The caller sets: cpus (the guest's CPUs), size (bytes of each
# RAM device), secs (seconds per fio job), raw (where fio's JSON goes);
# hence SC2154 above.

die() { echo "bench: $*" >&2; exit 1; }

# Bytes of RAM behind a RAM device: rd's own counter, brd's in debugfs.
ram_bytes() {
	case $1 in
	rd[0-9]*) cat "/sys/block/$1/rdmirror/allocated_bytes" ;;
	ram0) echo $(($(cat /sys/kernel/debug/ramdisk_pages/ram0) * 4096)) ;;
	*) die "no RAM counter for $1" ;;
	esac
}

# filled RAMDEV BYTES: RAMDEV holds at least BYTES of written pages, or the
# bench refuses to go on (a read of a hole measures the zero-fill path).
filled() {
	local have
	have=$(ram_bytes "$1")
	((have >= $2)) || die "refusing to report hole reads: $1 holds $have bytes, $2 were written"
}

# fill DEV: write every byte of DEV with fio's random buffers, 1 MiB at a time.
fill() {
	fio --name=fill --filename="$1" --rw=write --bs=1M --ioengine=libaio \
		--iodepth=8 --direct=1 --output-format=terse >/dev/null
}

# The workloads: fio arguments after the common ones. The article's flags
# are 4 KiB, libaio, iodepth 32, direct.
declare -A wl=(
	[randread-qd32]="--rw=randread --bs=4k --ioengine=libaio --iodepth=32 --numjobs=1"
	[randwrite-qd32]="--rw=randwrite --bs=4k --ioengine=libaio --iodepth=32 --numjobs=1"
	[randread-qd1-psync]="--rw=randread --bs=4k --ioengine=psync --iodepth=1 --numjobs=1"
	[randread-qd32-jobs]="--rw=randread --bs=4k --ioengine=libaio --iodepth=32 --numjobs=$cpus"
	[randread-qd32-uring]="--rw=randread --bs=4k --ioengine=io_uring --iodepth=32 --numjobs=1"
	[read-1m]="--rw=read --bs=1M --ioengine=libaio --iodepth=8 --numjobs=1"
	[randread-1m]="--rw=randread --bs=1M --ioengine=psync --iodepth=1 --numjobs=1 --cpus_allowed=0"
	# the same reads into buffers registered with io_uring once (pinned
	# once, not at every read, as databases that use io_uring read)
	[randread-fixed-1m]="--rw=randread --bs=1M --ioengine=io_uring --fixedbufs=1 --registerfiles=1 --iodepth=1 --numjobs=1 --cpus_allowed=0"
	[write-1m]="--rw=write --bs=1M --ioengine=libaio --iodepth=8 --numjobs=1"
)

# at_once CASE DEV_A DEV_B WORKLOAD ROUND: one fio run, a job group per
# device, named after it.
at_once() {
	local name=$1 a=$2 b=$3 w=$4 round=$5
	local -a args pin=() order=("$a" "$b")
	read -ra args <<<"${wl[$w]}"
	[[ "${wl[$w]}" != *--numjobs=1* ]] || pin=(--cpus_allowed=$(((round - 1) % cpus)))
	((round % 2)) || order=("$b" "$a")
	fio --direct=1 --time_based --runtime="$secs" --ramp_time=1 --group_reporting \
		--lat_percentiles=1 --output-format=json --output="$raw/$name--$w--$round.json" \
		--name="${order[0]}" --filename="/dev/${order[0]}" "${args[@]}" "${pin[@]}" \
		--name="${order[1]}" --new_group --filename="/dev/${order[1]}" "${args[@]}" "${pin[@]}" \
		>/dev/null
}
# ram_at_once CASE DEV_A DEV_B WORKLOAD ROUND: at_once of two RAM devices,
# a read only after the check that both hold what was written.
ram_at_once() {
	if [[ "$4" == *read* ]]; then
		filled "$2" "$size"
		filled "$3" "$size"
	fi
	at_once "$@"
}
