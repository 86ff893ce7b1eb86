#!/usr/bin/env bats
# Compressed rd disks (RDMIRROR_ADD_COMPRESS, module/rd_zstore.c), made
# with the raw ioctl (rd-ioctl): fio's verify of compressible data on a
# bare disk (lz4, zstd) and through an md RAID1 whose disk member is
# write-mostly; the per-disk counters; and the disk's own memory limit,
# which fails the RAM member alone inside md, the data whole on the disk;
# and rdctl's side: --convert --compress on a RAID1 of both stand-ins;
# then an array twice the guest's spare RAM, made small by shared memory
# held as a database's buffer pool would: 3x-compressible data served from the
# RAM member, incompressible data failing it alone at rdctl's limit.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/helpers.bash"

setup() {
	rd_common_setup
	H1=$(hdd 1)
	H2=$(hdd 2)
}
teardown() {
	local rc=0
	# (the "database's" shared memory, of the spare-RAM tests)
	! mountpoint -q "$T/db" || umount "$T/db" || rc=$?
	rd_common_teardown || rc=$?
	wipefs -qa "/dev/$H1" "/dev/$H2" >/dev/null 2>&1 || true
	return "$rc"
}

# zadd SIZE COMP [MEM_LIMIT]: a compressed disk, its name printed
zadd() {
	local i
	i=$(rd-ioctl add size="$1" flags=2 comp="$2" mem_limit="${3:-0}") || {
		echo "add failed: $i" >&2
		return 1
	}
	udev_settle
	echo "rd$i"
}

zattr() { cat "/sys/block/$1/rdmirror/$2"; }

# zfio DEV SIZE_MIB: random writes of 75%-compressible data, 512 B to
# 64 KiB, then every block read back and checked (crc32c)
zfio() {
	fio --name=z --filename="/dev/$1" --size="$2M" --rw=randwrite \
		--bssplit=512/10:4k/60:64k/30 --ioengine=libaio --iodepth=8 \
		--direct=1 --buffer_compress_percentage=75 --buffer_compress_chunk=4k \
		--refill_buffers --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--output-format=terse >>"$T/fio.out"
}

@test "compressed disks (lz4, zstd): fio verify of compressible data, counters, discard frees, refusals" {
	# half as much under KASAN, which checks every byte copied
	local mib=24
	! rd_debug_kernel || mib=12
	for comp in 1 2; do
		d=$(zadd $((32 * MiB)) $comp)
		[ "$(zattr "$d" compressor)" = "$([ $comp = 1 ] && echo lz4 || echo zstd)" ]
		[ "$(cat "/sys/block/$d/queue/logical_block_size")" = 512 ]
		[ "$(cat "/sys/block/$d/queue/physical_block_size")" = 4096 ]
		[ "$(cat "/sys/block/$d/queue/stable_writes")" = 1 ]
		zfio "$d" $mib
		data=$(zattr "$d" data_bytes)
		alloc=$(zattr "$d" allocated_bytes)
		echo "# $d $(zattr "$d" compressor): data $data, allocated $alloc," \
			"same $(zattr "$d" same_pages), huge $(zattr "$d" huge_pages)" >&3
		((data > mib * MiB * 2 / 3 && alloc > 0))
		# 75% compressible: at least 2x with what the objects take
		((data > 2 * alloc))
		[ "$(zattr "$d" checksum_errors)" = 0 ]
		blkdiscard "/dev/$d"
		[ "$(zattr "$d" allocated_bytes)" = 0 ]
		[ "$(zattr "$d" data_bytes)" = 0 ]
		cmp -n $((32 * MiB)) "/dev/$d" /dev/zero
	done
	run rd-ioctl add size=$MiB flags=3 comp=1
	[ "$output" = EINVAL ]
	run rd-ioctl add size=$MiB flags=2 comp=0
	[ "$output" = EINVAL ]
	run rd-ioctl add size=$MiB flags=2 comp=3
	[ "$output" = EINVAL ]
	run rd-ioctl add size=$MiB flags=2 comp=1 mem_limit=$((1 << 62))
	[ "$output" = ENOMEM ]
}

@test "a compressed member of md RAID1: fio verify; past its mem_limit it alone fails, the data whole" {
	local mib=32
	! rd_debug_kernel || mib=12
	d=$(zadd $((64 * MiB)) 1)
	# (assume-clean: both read as zeros where md0 has not written)
	dd if=/dev/zero of="/dev/$H1" bs=1M count=64 oflag=direct status=none
	mdadm --create /dev/md0 --run --level=1 --metadata=1.2 --raid-devices=2 \
		--assume-clean --bitmap=internal "/dev/$d" --write-mostly "/dev/$H1"
	zfio md0 $mib
	[ "$(md_attr degraded)" = 0 ]
	# a bound 2 MiB above what it holds: 16 MiB of random data pass it
	alloc=$(zattr "$d" allocated_bytes)
	echo $((alloc + 2 * MiB)) >"/sys/block/$d/rdmirror/mem_limit"
	head -c $((16 * MiB)) /dev/urandom >"$T/data"
	dd if="$T/data" of=/dev/md0 bs=1M seek=40 oflag=direct status=none
	echo "$d: allocated $(zattr "$d" allocated_bytes), refused $(zattr "$d" refused_writes), md0 degraded $(md_attr degraded)"
	[ "$(md_attr degraded)" = 1 ]
	[[ "$(cat "/sys/block/md0/md/dev-$d/state")" == *faulty* ]]
	(($(zattr "$d" refused_writes) > 0))
	(($(zattr "$d" allocated_bytes) <= alloc + 2 * MiB))
	cmp <(dd if=/dev/md0 bs=1M skip=40 count=16 iflag=direct status=none) "$T/data"
	# room again: back in, recovered from the disk, then checked
	echo 0 >"/sys/block/$d/rdmirror/mem_limit"
	mdadm /dev/md0 --remove "/dev/$d"
	mdadm /dev/md0 --re-add "/dev/$d" || mdadm /dev/md0 --add "/dev/$d"
	wait_idle
	[ "$(md_attr degraded)" = 0 ]
	echo check >/sys/block/md0/md/sync_action
	wait_idle
	[ "$(md_attr mismatch_cnt)" = 0 ]
	cmp <(dd if=/dev/md0 bs=1M skip=40 count=16 iflag=direct status=none) "$T/data"
	[ "$(zattr "$d" checksum_errors)" = 0 ]
}

@test "rdctl --convert --compress: the data read back equal, its figures in --status and --list, md check 0 mismatches" {
	# (rdctl's figures, the same code on every kernel; the module's paths
	# under the convert, the warm copy into a compressed disk and md's
	# recovery, run on the debug kernel in the spare-RAM test below)
	! rd_debug_kernel || skip "rdctl's figures run on the Debian kernels"
	local conf=$T/rdmirror.conf doc
	: >"$conf"
	# (assume-clean: both stand-ins zeroed, an earlier test wrote one)
	blkdiscard -z "/dev/$H1"
	blkdiscard -z "/dev/$H2"
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		--assume-clean --bitmap=internal "/dev/$H1" "/dev/$H2"
	# 48 MiB of 75%-compressible data, the rest of the array zeros
	fio --name=w --filename=/dev/md0 --size=48M --rw=write --bs=64k --direct=1 \
		--ioengine=psync --buffer_compress_percentage=75 --buffer_compress_chunk=4k \
		--refill_buffers --output-format=terse >/dev/null
	sum=$(dd if=/dev/md0 bs=1M count=48 iflag=direct status=none | sha256sum)
	run rdctl --convert /dev/md0 --compress --config "$conf" --wait
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"rdctl --attach "*" --compress=lz4"* ]]
	uuid=$(mdadm --detail --export /dev/md0 | sed -n 's/^MD_UUID=//p')
	[ "$(tail -n 1 "$conf")" = "UUID=$uuid auto compress=lz4" ]
	[ "$(zattr rd0 compressor)" = lz4 ]
	(($(zattr rd0 mem_limit) > 0))
	grep -qx in_sync /sys/block/md0/md/dev-rd0/state
	[ "$(md_attr degraded)" = 0 ]
	echo 3 >/proc/sys/vm/drop_caches
	[ "$(dd if=/dev/md0 bs=1M count=48 iflag=direct status=none | sha256sum)" = "$sum" ]
	# --status: the member's kind and figures, the JSON valid
	run rdctl --status --json --config "$conf"
	echo "$output" >"$T/status.json"
	doc=$T/status.json
	python3 "$RD_TOP/test/unit/validate-json.py" "$RD_TOP/utils/rdctl.schema.json" \
		module,memory,disks,arrays,mirrors,warnings,status "$doc"
	python3 - "$doc" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rd = [x for x in d["disks"] if x["name"] == "rd0"][0]
c = rd["compressed"]
print("# rd0:", c)
assert rd["kind"] == "compressed" and c["compressor"] == "lz4"
assert c["ratio"] is not None and c["ratio"] > 1.5, c
assert c["mem_limit"] > 0 and c["checksum_errors"] == 0, c
m = [x for a in d["arrays"] if a["name"] == "md0" for x in a["members"] if x["name"] == "rd0"][0]
assert m["kind"] == "compressed"
assert not [w for w in d["warnings"] if w["code"].startswith("compressed_")], d["warnings"]
PY
	run rdctl --status --config "$conf"
	echo "$output"
	[[ "$output" == *"  rd0: lz4, ratio "*", checksum errors 0"* ]]
	run rdctl --list -o NAME,KIND,RATIO -n
	[[ "$output" =~ ^rd0\ +compressed\ +[0-9]+\.[0-9][0-9]$ ]]
	# md's check reads every member: the compressed member equals the disks
	echo check >/sys/block/md0/md/sync_action
	wait_idle
	[ "$(md_attr mismatch_cnt)" = 0 ]
	[ "$(zattr rd0 checksum_errors)" = 0 ]
	run rdctl --revert /dev/md0 --config "$conf"
	[ "$status" -eq 0 ]
	[ "$(dd if=/dev/md0 bs=1M count=48 iflag=direct status=none | sha256sum)" = "$sum" ]
}

# The spare-RAM tests: an array of 192 MiB on both stand-ins (144 on the
# debug kernel), rdctl's reserve RESERVE_MIB (rdmirror.conf), and the
# guest's MemAvailable brought down to the reserve + half the array, so
# that rdctl --convert --compress sets a memory limit of about half the
# array. (rdctl refuses a limit below 64 MiB, COMPRESS_MIN_LIMIT: the
# debug kernel's array can be no smaller.)
RESERVE_MIB=128

# mem_avail_mib: MemAvailable, MiB
mem_avail_mib() {
	local k v
	while read -r k v _; do
		[[ "$k" != MemAvailable: ]] || { echo $((v / 1024)); return 0; }
	done </proc/meminfo
	return 1
}

# hold_ram MIB: shared memory held (the "database": PostgreSQL's buffer
# pool is shared memory too), a file on a tmpfs of its own that the
# guest, with no swap, cannot reclaim, grown or cut until MemAvailable is
# MIB within 4 MiB: what an administrator's host has spare. (Not
# hugepages: the debug kernel has no hugetlbfs.) teardown gives it back.
hold_ram() {
	local want=$1 i held=0 have step
	mkdir -p "$T/db"
	mountpoint -q "$T/db" || mount -t tmpfs -o size=90% db "$T/db"
	# (in steps of at most 3/4 of the gap: MemAvailable is an estimate,
	# and one allocation of all of it fails on the debug kernel)
	for i in $(seq 12); do
		sync
		echo 3 >/proc/sys/vm/drop_caches
		have=$(mem_avail_mib)
		((have - want > 4 || want - have > 4)) || break
		step=$(((have - want) * 3 / 4))
		((step != 0)) || step=$((have - want))
		held=$((held + step))
		((held >= 0)) || held=0
		truncate -s "${held}M" "$T/db/buffers"
		((held == 0)) || fallocate -l "${held}M" "$T/db/buffers" || {
			echo "# fallocate of ${held}M failed, MemAvailable $have MiB" >&3
			return 1
		}
	done
	echo "# shared memory $held MiB held, MemAvailable $have MiB (wanted $want)" >&3
	((have - want <= 4 && want - have <= 4))
}

# spare_ram_array MIB PERCENT: md0, a RAID1 of the stand-ins MIB MiB
# large, every block written by fio with data PERCENT% compressible (4 KiB
# chunks, each buffer new), $conf holding rdctl's reserve, and the
# guest's RAM held down to the reserve + MIB / 2; $SUM the array's
# sha256. (assume-clean: every block of the array is written.)
spare_ram_array() {
	local mib=$1
	conf=$T/rdmirror.conf
	echo "reserve ${RESERVE_MIB}M" >"$conf"
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		--assume-clean --bitmap=internal --size=$((mib * 1024)) "/dev/$H1" "/dev/$H2"
	[ "$(($(cat /sys/block/md0/size) / 2048))" = "$mib" ]
	fio --name=w --filename=/dev/md0 --size="${mib}M" --rw=write --bs=1M \
		--direct=1 --ioengine=libaio --iodepth=4 \
		--buffer_compress_percentage="$2" --buffer_compress_chunk=4k \
		--refill_buffers --output-format=terse >/dev/null
	SUM=$(md0_sum "$mib")
	hold_ram $((RESERVE_MIB + mib / 2))
}

# md0_sum MIB: sha256 of md0's first MIB MiB, read past the page cache
md0_sum() {
	dd if=/dev/md0 bs=1M count="$1" iflag=direct status=none | sha256sum
}

# md_reads DEV...: read I/Os completed by each DEV, one line
md_reads() {
	local d s out=()
	for d in "$@"; do
		read -ra s <"/sys/block/$d/stat"
		out+=("${s[0]}")
	done
	echo "${out[*]}"
}

@test "an array twice the spare RAM, 3x-compressible, converted --compress: reads from the RAM member >= 99%, read back equal, md check 0 mismatches" {
	local mib=192 b rd h1 h2
	! rd_debug_kernel || mib=144
	spare_ram_array $mib 67
	run rdctl --convert /dev/md0 --compress --config "$conf" --wait
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx in_sync /sys/block/md0/md/dev-rd0/state
	[ "$(md_attr degraded)" = 0 ]
	limit=$(zattr rd0 mem_limit)
	data=$(zattr rd0 data_bytes)
	alloc=$(zattr rd0 allocated_bytes)
	echo "# array $mib MiB, limit $((limit / MiB)) MiB, data $((data / MiB)) MiB in $((alloc / MiB)) MiB" >&3
	# the array about twice the spare RAM rdctl found, all of it in the member
	((limit * 18 / 10 <= mib * MiB && mib * MiB <= limit * 22 / 10))
	((data >= (mib - 1) * MiB))
	# 67% compressible: about 3x (2.5x at least with what the objects take)
	((data * 10 >= alloc * 25 && alloc < limit))
	[ "$(zattr rd0 refused_writes)" = 0 ]
	# 4 KiB random reads through md: the disks are write-mostly
	read -ra b <<<"$(md_reads rd0 "$H1" "$H2")"
	fio --name=r --filename=/dev/md0 --size="${mib}M" --rw=randread --bs=4k \
		--direct=1 --ioengine=libaio --iodepth=8 --io_size=32M \
		--output-format=terse >/dev/null
	read -r rd h1 h2 <<<"$(md_reads rd0 "$H1" "$H2")"
	rd=$((rd - b[0])) h1=$((h1 - b[1])) h2=$((h2 - b[2]))
	echo "# random reads: rd0 $rd, $H1 $h1, $H2 $h2" >&3
	((rd >= 8192 && rd * 100 >= 99 * (rd + h1 + h2)))
	# the data read back equal, from the member, and equal on every member
	echo 3 >/proc/sys/vm/drop_caches
	[ "$(md0_sum $mib)" = "$SUM" ]
	echo check >/sys/block/md0/md/sync_action
	wait_idle
	[ "$(md_attr mismatch_cnt)" = 0 ]
	[ "$(zattr rd0 checksum_errors)" = 0 ]
	[ "$(zattr rd0 refused_writes)" = 0 ]
}

@test "the same array of incompressible data reaches the limit: only the RAM member fails, data intact, --status CRITICAL compressed_limit" {
	local mib=192
	! rd_debug_kernel || mib=144
	spare_ram_array $mib 0
	run rdctl --convert /dev/md0 --compress --config "$conf" --wait
	echo "$output"
	# (--wait: the member did not come into sync, and it says why)
	[ "$status" -ne 0 ]
	[[ "$output" == *"rd0 did not come into sync in md0: compressed RAM member rd0 reached its memory limit (ratio "*", limit "*"): "*" writes refused, so "*"md0"*": fix: "*"rdctl --restore"* ]]
	limit=$(zattr rd0 mem_limit)
	alloc=$(zattr rd0 allocated_bytes)
	echo "# array $mib MiB, limit $((limit / MiB)) MiB, allocated $((alloc / MiB)) MiB, $(zattr rd0 refused_writes) writes refused" >&3
	((limit * 18 / 10 <= mib * MiB && mib * MiB <= limit * 22 / 10))
	# the member failed at its limit, never past it; the disks in the array
	(($(zattr rd0 refused_writes) > 0 && alloc <= limit))
	# (out of md0: the warm-up copy fails at the limit, and md never gets
	# rd0, which holds no md superblock (6.1, 6.12); or md takes a member
	# whose recovery failed out of the array, or keeps it faulty)
	st=$(cat /sys/block/md0/md/dev-rd0/state 2>/dev/null || echo gone)
	echo "# rd0 in md0: $st; its md superblock: $(mdadm --examine /dev/rd0 2>&1 | grep -m1 -E 'Array UUID|superblock' || true)" >&3
	[[ "$st" == gone || "$st" == *faulty* ]]
	grep -qx in_sync "/sys/block/md0/md/dev-$H1/state"
	grep -qx in_sync "/sys/block/md0/md/dev-$H2/state"
	[ "$(md_attr sync_action)" = idle ]
	# the host alive: no OOM kill, and its reserve free
	[[ ! "$(dmesg)" =~ invoked\ oom-killer|Out\ of\ memory ]]
	(($(mem_avail_mib) >= RESERVE_MIB / 2))
	# the data read back equal, from the disks, and equal on both
	echo 3 >/proc/sys/vm/drop_caches
	[ "$(md0_sum $mib)" = "$SUM" ]
	echo check >/sys/block/md0/md/sync_action
	wait_idle
	[ "$(md_attr mismatch_cnt)" = 0 ]
	# --status: CRITICAL (exit 3; --nagios 2), compressed_limit of md0 with
	# why and its fix, whether md keeps rd0 as faulty or rd0 is out of md0
	# (the md superblock on rd0, or rdctl's record, names md0); no second
	# finding of md0 that says it has no RAM member
	run rdctl --status --config "$conf"
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"! CRITICAL md0: compressed RAM member rd0 reached its memory limit (ratio "*", limit "*"): "*" writes refused, so "*"md0"*" runs from its disks;"*": fix: "*"then rdctl --restore (a new member, a new limit)"* ]]
	if [ "$st" = gone ]; then
		[[ "$output" == *"so it is out of md0, which runs from its disks;"*"fix: rdctl --detach rd0 "* ]]
	fi
	[[ "$output" != *"no RAM member"* && "$output" != *"restore has not run"* ]]
	run rdctl --status --nagios --config "$conf"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == "RDMIRROR CRITICAL"* ]]
	run rdctl --status --json --config "$conf"
	echo "$output" >"$T/status.json"
	python3 - "$T/status.json" "$st" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
w = [x for x in d["warnings"] if x["code"] == "compressed_limit"]
print("#", w)
assert len(w) == 1 and w[0]["severity"] == "CRITICAL" and w[0]["device"] == "rd0", d["warnings"]
assert re.search(r"\(ratio [01]\.[0-9][0-9]:1, RAM used [^,]+, data held [^,]+, limit [0-9.]+ MiB\)", w[0]["message"]), w
# md0's, whether md keeps rd0 as faulty or rd0 is out of it; md0 failed, with
# rd0 its RAM member, and no other finding of md0's RAM member
assert w[0]["array"] == "md0", w
assert "rdctl --revert /dev/md0" in w[0]["message"], w
m = [x for x in d["mirrors"] if x["array"] == "md0"]
assert len(m) == 1 and m[0]["state"] == "failed" and m[0]["rd"] == "rd0", m
assert not [x for x in d["warnings"] if x["code"] in ("not_restored", "ram_not_in_sync")], d["warnings"]
PY
}
