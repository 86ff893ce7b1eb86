# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # out, err, tmp, here, broot, blog, conf, uuid...: set by run-checks.sh, boot-checks.sh, mirror-checks.sh
# The compressed RAM member (--compress, compress=) on the fake tree: each
# refusal with its message, the memory limit rdctl gives the disk (the
# fake ioctl logs it), the module without compression, the configuration
# line, and --restore's memory check at the ratio --release kept. Sourced
# by run-checks.sh after status-checks.sh (expect_sev, promcheck) and
# mirror-checks.sh (raid1_tree).

saved_env="$RDCTL_SYSFS_ROOT|$RDCTL_PROC_ROOT|$RDCTL_DEV_ROOT"
export RDCTL_FAKE_LOG=$blog RDCTL_MDADM_CONF=$tmp/mdadm.conf RDCTL_RESTORE_TIMEOUT=0
export RDCTL_SYSFS_ROOT=$broot/sys RDCTL_PROC_ROOT=$broot/proc RDCTL_DEV_ROOT=$broot/dev
MiB=1048576

# --- the options: each wrong combination refused, nothing run ---------------
usage "compress unknown" "unknown compressor 'gzip' for --compress: expected lz4 or zstd" -a 4G --compress=gzip
usage "compress prealloc" "--compress and --prealloc cannot be used together" -a 4G --compress --prealloc
usage "compress member" "--compress and --member cannot be used together" \
	--convert md0 --compress --member /dev/disk/by-id/nvme-x
usage "compress revert" "--compress goes with --attach, --create or --convert only" --revert md0 --compress
# "--compress zstd" takes the next word only when it names a compressor
usage "compress next word" "unexpected argument 'md0'" -a 4G --compress md0

# --- --attach: larger than RAM, bounded by the memory spare ---------------------
# 16 GiB of RAM, 4 GiB available (raid1_tree), a reserve of 512 MiB, no rd disk:
# the bound is 4096 - 512 = 3584 MiB
raid1_tree
printf 'reserve 512M\n' >"$conf"
: >"$blog"
RDCTL_CONFIG=$conf RDCTL_FAKE_COMPRESS=1 run "attach compressed" 0 -a 32G --compress zstd
expect_out "attach compressed" "Attached device rd3 of size 32768 MiB, compressed with zstd, memory limit 3584 MiB"
expect_log "attach compressed: the ioctl" "ioctl ADD 34359738368 2
ioctl ADD_COMPRESS 2 $((3584 * MiB))"
RDCTL_CONFIG=$conf RDCTL_FAKE_COMPRESS=1 run "attach compressed json" 0 -a 8G --compress --json
validate "attach compressed json" attached
if python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["attached"]; sys.exit(not (a["compress"]=="lz4" and a["mem_limit"]==3584*2**20))' "$out"
then pass; else fail "attach compressed json: $(cat "$out")"; fi
# a module without compression refuses the flag (EINVAL): said as such
RDCTL_CONFIG=$conf run "attach compressed, old module" 1 -a 8G --compress
expect_err_has "attach compressed, old module" "the loaded rdmirror module cannot make compressed disks"
# too little spare once the reserve is kept: refused before any ioctl
printf 'reserve 4050M\n' >"$conf"
: >"$blog"
RDCTL_CONFIG=$conf RDCTL_FAKE_COMPRESS=1 run "attach compressed, no room" 1 -a 8G --compress
expect_err "attach compressed, no room" "a compressed disk would have less than 64 MiB of memory for its compressed data (4096 MiB available, 4050 MiB kept in reserve, 0 MiB still to fill in other rd disks): free memory, lower the reserve in rdmirror.conf, or --ignore-memory"
expect_log "attach compressed, no room: nothing ran" ""
# --ignore-memory: past the refusal, bounded by RAM less the reserve
RDCTL_CONFIG=$conf RDCTL_FAKE_COMPRESS=1 run "attach compressed, ignore memory" 0 -a 8G --compress --ignore-memory
expect_out_has "attach compressed, ignore memory" "memory limit 12334 MiB"

# --- --convert --compress: the plan, the attach, the configuration line -----------
raid1_tree
printf 'reserve 512M\n' >"$conf"
run "convert compressed dry" 0 --convert /dev/md0 --config "$conf" --compress --dry-run
expect_out_has "convert compressed dry attach" "  rdctl --attach 1025M --compress=lz4"
expect_out_has "convert compressed dry conf" "  # add to $conf: UUID=$uuid auto compress=lz4"
# an array larger than the memory available: refused for RAM, taken compressed
put "$broot/proc/meminfo" "MemTotal: 16777216 kB
MemAvailable: 819200 kB"
run "convert over memory" 1 --convert /dev/md0 --config "$conf" --dry-run
expect_err_has "convert over memory" "the RAM member needs 1025 MiB, more than the available memory (800 MiB)"
run "convert over memory, compressed" 0 --convert /dev/md0 --config "$conf" --dry-run --compress=zstd
expect_out_has "convert over memory, compressed" "  rdctl --attach 1025M --compress=zstd"
raid1_tree
printf 'reserve 512M\n' >"$conf"
: >"$blog"
RDCTL_FAKE_COMPRESS=1 run "convert compressed" 0 --convert /dev/md0 --config "$conf" --compress --json
validate "convert compressed" convert
if head -2 "$blog" | grep -qx "ioctl ADD_COMPRESS 1 $((3584 * MiB))"; then pass
else fail "convert compressed: no compressed add: $(cat "$blog")"; fi
expect_conf "convert compressed: its line" "reserve 512M
UUID=$uuid auto compress=lz4"
# the module without compression: said, and the array as it was
raid1_tree
printf 'reserve 512M\n' >"$conf"
run "convert compressed, old module" 1 --convert /dev/md0 --config "$conf" --compress
expect_err_has "convert compressed, old module" "the loaded rdmirror module cannot make compressed disks"
expect_conf "convert compressed, old module: line taken out" "reserve 512M"

# --- --restore: the memory check at the ratio --release kept ----------------------
# md0's RAM slot empty, 1025 MiB a member; 4 GiB available less a 3 GiB reserve
# leaves 1024 MiB: at 1:1 it does not fit, at 3:1 it does
boot_tree
put "$broot/proc/meminfo" "MemTotal: 16777216 kB
MemAvailable: 4194304 kB"
mkdir -p "$tmp/zstate"
printf 'reserve 3G\nmd0 auto compress=lz4\n' >"$conf"
RDCTL_STATE_DIR=$tmp/zstate run "restore compressed, no record" 0 --restore --dry-run --config "$conf"
expect_out_has "restore compressed, no record" "md0: would attach a 1025 MiB RAM disk compressed with lz4 and"
printf '%s %s\n' $((1000 * MiB)) $((1000 * MiB)) >"$tmp/zstate/ratio-$uuid"
RDCTL_STATE_DIR=$tmp/zstate run "restore compressed, 1:1" 1 --restore --dry-run --config "$conf"
expect_err_has "restore compressed, 1:1" "md0: not restored: a compressed member that held its data 1.00:1 needs about 1025 MiB (4096 MiB available, 3072 MiB kept in reserve, 0 MiB still to fill in other rd disks); md0 runs from its disks"
printf '%s %s\n' $((900 * MiB)) $((300 * MiB)) >"$tmp/zstate/ratio-$uuid"
RDCTL_STATE_DIR=$tmp/zstate run "restore compressed, 3:1" 0 --restore --dry-run --config "$conf"
expect_out_has "restore compressed, 3:1" "md0: would attach a 1025 MiB RAM disk compressed with lz4"
# the restore itself gives the disk its bound
: >"$blog"
RDCTL_STATE_DIR=$tmp/zstate RDCTL_FAKE_COMPRESS=1 run "restore compressed" 0 --restore --config "$conf"
if grep -qx "ioctl ADD_COMPRESS 1 $((1024 * MiB))" "$blog"; then pass
else fail "restore compressed: no compressed add with its bound: $(cat "$blog")"; fi

# --- --release keeps a compressed member's ratio -----------------------------------
boot_tree
rd_member 0 in_sync
put "$broot/sys/block/rd0/rdmirror/compressor" lz4
put "$broot/sys/block/rd0/rdmirror/data_bytes" $((600 * MiB))
put "$broot/sys/block/rd0/rdmirror/allocated_bytes" $((200 * MiB))
rm -f "$tmp/zstate/ratio-$uuid"
RDCTL_STATE_DIR=$tmp/zstate run "release compressed" 0 --release
expect_out_has "release compressed" "its compression ratio 3.00:1 kept"
if [ "$(cat "$tmp/zstate/ratio-$uuid" 2>/dev/null)" = "$((600 * MiB)) $((200 * MiB))" ]; then pass
else fail "release compressed: ratio record: $(cat "$tmp/zstate/ratio-$uuid" 2>&1)"; fi

# --- --status, --list: a compressed member told apart, its figures, its findings ---
# md0: rd0 compressed (lz4), 900 MiB of data in 300 MiB of RAM, limit 1000 MiB
compressed_tree() {
	boot_tree
	rd_member 0 in_sync
	put "$broot/sys/block/md0/md/degraded" 0
	put "$broot/sys/block/md0/md/dev-sdc/state" in_sync,write_mostly
	local z=$broot/sys/block/rd0/rdmirror
	put "$z/compressor" lz4
	put "$z/data_bytes" $((900 * MiB))
	put "$z/allocated_bytes" $((300 * MiB))
	put "$z/mem_limit" $((1000 * MiB))
	put "$z/same_pages" 5
	put "$z/huge_pages" 7
	put "$z/checksum_errors" 0
	put "$z/refused_writes" 0
	put "$broot/sys/block/rd0/stat" "100 0 800 0 0 0 0 0 0 0 0"
	printf 'md0 auto compress=lz4\n' >"$conf"
}
compressed_tree
# a compressed disk grows past the available memory: its mem_limit bounds it
run "resize compressed over memory" 0 -r rd0 8G
expect_out "resize compressed over memory" "Resized device rd0 from $(($(cat "$broot/sys/block/rd0/size") / 2048)) MiB to 8192 MiB"
compressed_tree
run "status compressed" 0 --status --config "$conf"
expect_out_has "status compressed: kind" "  rd0    compressed no           active in_sync"
expect_out_has "status compressed: figures" "  rd0: lz4, ratio 3.00:1, RAM used 300 MiB, data held 900 MiB, limit 1000 MiB, checksum errors 0"
expect_out_has "status compressed: no finding" "warnings: none"
run "status compressed json" 0 --status --json --config "$conf"
validate "status compressed json" module,memory,disks,arrays,mirrors,warnings,status
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["disks"][0]; c=d["compressed"]; sys.exit(not (d["kind"]=="compressed" and c["compressor"]=="lz4" and c["ratio"]==3.0 and c["data_bytes"]==900*2**20 and c["mem_limit"]==1000*2**20 and c["checksum_errors"]==0))' "$out"
then pass; else fail "status compressed json: $(cat "$out")"; fi
run "status compressed prometheus" 0 --status --prometheus --config "$conf"
promcheck "status compressed prometheus"
expect_out_has "status compressed prometheus: data" 'rdmirror_compressed_data_bytes{disk="rd0",compressor="lz4"} 943718400'
expect_out_has "status compressed prometheus: ram" 'rdmirror_compressed_allocated_bytes{disk="rd0",compressor="lz4"} 314572800'
expect_out_has "status compressed prometheus: limit" 'rdmirror_compressed_mem_limit_bytes{disk="rd0",compressor="lz4"} 1048576000'
expect_out_has "status compressed prometheus: kind" 'device="rd0",kind="compressed"} 100'
run "list compressed" 0 --list
expect_out_has "list compressed" "rd0  compressed   1G  300M"
run "list compressed ratio" 0 --list -o NAME,KIND,RATIO
expect_out "list compressed ratio" "NAME KIND       RATIO
rd0  compressed  3.00"
# 95% of its limit: WARNING with the figures
put "$broot/sys/block/rd0/rdmirror/allocated_bytes" $((950 * MiB))
run "status compressed near" 3 --status --json --config "$conf"
expect_sev "status compressed near" compressed_near_limit WARNING
run "status compressed near text" 3 --status --config "$conf"
expect_out_has "status compressed near text" "md0: compressed RAM member rd0 uses 95% of its memory limit (ratio 0.95:1, RAM used 950 MiB, data held 900 MiB, limit 1000 MiB)"
# its limit refused writes: md failed it, CRITICAL with the ratio, the limit and the fix
put "$broot/sys/block/rd0/rdmirror/refused_writes" 12
put "$broot/sys/block/rd0/rdmirror/checksum_errors" 2
put "$broot/sys/block/md0/md/dev-rd0/state" faulty
run "status compressed limit" 3 --status --json --config "$conf"
validate "status compressed limit" module,memory,disks,arrays,mirrors,warnings,status
expect_sev "status compressed limit" compressed_limit CRITICAL
expect_sev "status compressed checksum" compressed_checksum WARNING
expect_sev "status compressed limit: not the module's" ram_mem_limit none
run "status compressed limit text" 3 --status --config "$conf"
expect_out_has "status compressed limit text" "! CRITICAL md0: compressed RAM member rd0 reached its memory limit (ratio 0.95:1, RAM used 950 MiB, data held 900 MiB, limit 1000 MiB): 12 writes refused, so md failed it and md0 runs from its disks; its data compresses worse than the limit allows: fix: free memory or lower the reserve in rdmirror.conf, then rdctl --restore (a new member, a new limit), or rdctl --revert /dev/md0 and rdctl --convert /dev/md0 --compress=zstd for a better ratio"
expect_out_has "status compressed checksum text" "md0: compressed RAM member rd0 had 2 reads fail its checksum or decompression"
run "status compressed limit nagios" 2 --status --nagios --config "$conf"
# md took the failed member out (as it does once the recovery failed):
# nothing in sysfs names md0, the md superblock left on rd0 does
# md_super FILE UUID: a version-1.2 superblock of array UUID (8:8:8:8) at 4 KiB of FILE
md_super() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
b = bytearray(4096)
struct.pack_into("<II", b, 0, 0xa92b4efc, 1)
b[16:32] = bytes.fromhex(sys.argv[2].replace(":", ""))
struct.pack_into("<I", b, 92, 3)                        # raid_disks
struct.pack_into("<QQQ", b, 128, 2048, 2097152, 8)      # data_offset, data_size, super_offset
struct.pack_into("<I", b, 160, 2)                       # dev_number
struct.pack_into("<Q", b, 200, 40)                      # events
struct.pack_into("<I", b, 220, 3)                       # max_dev
struct.pack_into("<HHH", b, 256, 0, 1, 2)               # dev_roles
s = sum(struct.unpack_from("<65I", b, 0)) - struct.unpack_from("<I", b, 216)[0]
s += struct.unpack_from("<H", b, 260)[0]
struct.pack_into("<I", b, 216, ((s & 0xffffffff) + (s >> 32)) & 0xffffffff)
with open(sys.argv[1], "wb") as f:
    f.write(bytes(4096) + b)
PY
}
left_tree() {	# UUID of the superblock on rd0 ("": none)
	compressed_tree
	rm -f "$RDCTL_RUN_DIR/rd-rd0.array"
	put "$broot/sys/block/rd0/diskseq" 7
	put "$broot/sys/block/rd0/rdmirror/refused_writes" 12
	rm -rf "$broot/sys/block/md0/md/dev-rd0" "$broot/sys/block/rd0/holders/md0"
	if [ -n "$1" ]; then md_super "$broot/dev/rd0" "$1"; else : >"$broot/dev/rd0"; fi
}
left_tree "$uuid"
run "status compressed left" 3 --status --config "$conf"
expect_out_has "status compressed left: md0's" "! CRITICAL md0: compressed RAM member rd0 reached its memory limit (ratio 3.00:1, RAM used 300 MiB, data held 900 MiB, limit 1000 MiB): 12 writes refused, so it is out of md0, which runs from its disks; its data compresses worse than the limit allows: fix: rdctl --detach rd0 (md no longer uses it: its memory stays held until then), free memory or lower the reserve in rdmirror.conf, then rdctl --restore (a new member, a new limit), or rdctl --revert /dev/md0 and rdctl --convert /dev/md0 --compress=zstd for a better ratio"
expect_out_lacks "status compressed left: no bare form" "rdctl --flush rd0"
expect_out_lacks "status compressed left: no missing member" "no RAM member"
run "status compressed left json" 3 --status --json --config "$conf"
validate "status compressed left json" module,memory,disks,arrays,mirrors,warnings,status
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=[x for x in d["warnings"] if x["code"]=="compressed_limit"]; m=[x for x in d["mirrors"] if x["array"]=="md0"]; sys.exit(not (len(w)==1 and w[0]["array"]=="md0" and w[0]["device"]=="rd0" and len(m)==1 and m[0]["state"]=="failed" and m[0]["rd"]=="rd0" and "rdctl --detach rd0" in m[0]["fix"] and not [x for x in d["warnings"] if x["array"]=="md0" and x["code"]!="compressed_limit"]))' "$out"
then pass; else fail "status compressed left json: $(cat "$out")"; fi
vg "status compressed left" 3 --status --json --config "$conf"
run "status compressed left nagios" 2 --status --nagios --config "$conf"
expect_out_has "status compressed left nagios" "RDMIRROR CRITICAL - md0/rd0 compressed_limit |"
# not configured: md0, which has no rd member left, is still found and named
printf 'reserve 1G\n' >"$conf"
run "status compressed left, not configured" 3 --status --json --config "$conf"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=[x for x in d["warnings"] if x["code"]=="compressed_limit"]; sys.exit(not (len(w)==1 and w[0]["array"]=="md0" and [x for x in d["arrays"] if x["name"]=="md0"]))' "$out"
then pass; else fail "status compressed left, not configured: $(cat "$out")"; fi
# the superblock of an array not running here, or none: the bare disk's finding
for sb in 11111111:22222222:33333333:44444444 ""; do
	left_tree "$sb"
	run "status compressed left, sb '$sb'" 3 --status --config "$conf"
	expect_out_has "status compressed left, sb '$sb': bare" "! CRITICAL compressed disk rd0 reached its memory limit (ratio 3.00:1, RAM used 300 MiB, data held 900 MiB, limit 1000 MiB): 12 writes refused with ENOSPC; fix: free what it holds (rdctl --flush rd0) or attach a larger limit"
	expect_out_lacks "status compressed left, sb '$sb': not md0's" "CRITICAL md0:"
done
# no superblock, but rdctl's record of the disk it gave md0 (a warm-up copy
# that failed at the limit: md never had it): md0's; not a record of an
# earlier disk of that name (another diskseq)
left_tree ""
printf '%s 7\n' "$uuid" >"$RDCTL_RUN_DIR/rd-rd0.array"
run "status compressed left, recorded" 3 --status --config "$conf"
expect_out_has "status compressed left, recorded" "! CRITICAL md0: compressed RAM member rd0 reached its memory limit (ratio 3.00:1, RAM used 300 MiB, data held 900 MiB, limit 1000 MiB): 12 writes refused, so it is out of md0, which runs from its disks;"
expect_out_lacks "status compressed left, recorded: no missing member" "no RAM member"
vg "status compressed left, recorded" 3 --status --config "$conf"
put "$broot/sys/block/rd0/diskseq" 8
run "status compressed left, recorded for another disk" 3 --status --config "$conf"
expect_out_has "status compressed left, recorded for another disk" "! CRITICAL compressed disk rd0 reached its memory limit"
rm -f "$RDCTL_RUN_DIR/rd-rd0.array"
# the module's limit, an uncompressed member taken out: md0's too
left_tree "$uuid"
rm -rf "$broot/sys/block/rd0/rdmirror/compressor"
run "status ram limit left" 3 --status --config "$conf"
expect_out_has "status ram limit left" "! CRITICAL md0: RAM member rd0 had 12 writes refused: rdmirror's memory limit is reached ("
expect_out_has "status ram limit left: fix" "so it is out of md0, which runs from its disks; fix: rdctl --detach rd0 (md no longer uses it), give the rd disks room"
# --restore --wait: a compressed member md fails at its limit, said with why
boot_tree
put "$broot/proc/meminfo" "MemTotal: 16777216 kB
MemAvailable: 4194304 kB"
printf 'reserve 512M\nmd0 auto compress=lz4\n' >"$conf"
put "$broot/sys/block/rd3/diskseq" 9
(
	# (once md has it: rd3 in md0, then what its limit does)
	for _ in $(seq 100); do [ ! -d "$broot/sys/block/md0/md/dev-rd3" ] || break; sleep 0.1; done
	sleep 1.5
	z=$broot/sys/block/rd3/rdmirror
	put "$broot/sys/block/rd3/size" 2099200
	put "$z/compressor" lz4
	put "$z/data_bytes" $((500 * MiB))
	put "$z/allocated_bytes" $((500 * MiB))
	put "$z/mem_limit" $((500 * MiB))
	put "$z/refused_writes" 3
	rm -rf "$broot/sys/block/md0/md/dev-rd3" "$broot/sys/block/rd3/holders/md0"
) &
RDCTL_FAKE_COMPRESS=1 run "restore wait compressed limit" 1 --restore --wait --config "$conf"
wait
# (the record of the disk given to md0, with its diskseq)
if [ "$(cat "$RDCTL_RUN_DIR/rd-rd3.array" 2>&1)" = "$uuid 9" ]; then pass
else fail "restore wait compressed limit: record: $(cat "$RDCTL_RUN_DIR/rd-rd3.array" 2>&1)"; fi
rm -f "$RDCTL_RUN_DIR/rd-rd3.array"
expect_err "restore wait compressed limit" "md0: rd3 did not come into sync in md0: compressed RAM member rd3 reached its memory limit (ratio 1.00:1, RAM used 500 MiB, data held 500 MiB, limit 500 MiB): 3 writes refused, so it is out of md0, which runs from its disks; its data compresses worse than the limit allows: fix: rdctl --detach rd3 (md no longer uses it: its memory stays held until then), free memory or lower the reserve in rdmirror.conf, then rdctl --restore (a new member, a new limit), or rdctl --revert /dev/md0 and rdctl --convert /dev/md0 --compress=zstd for a better ratio"

# a compressed disk larger than the memory available is no ram_over_available
compressed_tree
put "$broot/sys/block/rd0/size" $((64 * 2097152))
put "$broot/proc/meminfo" "MemTotal: 16777216 kB
MemAvailable: 1048576 kB"
run "status compressed over available" 0 --status --json --config "$conf"
expect_sev "status compressed over available" ram_over_available none

# --list: a mirror's member disk is listed too, of kind disk, with its mirror
boot_tree
mkdir -p "$broot/dev/disk/by-id"
: >"$broot/dev/nvme0n1"
ln -sf ../../nvme0n1 "$broot/dev/disk/by-id/nvme-rdtest-nvme"
member md0 nvme0n1 in_sync 2
mkdir -p "$broot/sys/class/block/nvme0n1/holders/md0"
printf 'md0 auto member=%s\n' "$broot/dev/disk/by-id/nvme-rdtest-nvme" >"$conf"
RDCTL_CONFIG=$conf run "list member disk" 0 --list -o NAME,KIND,SIZE,MIRROR,ROLE
expect_out "list member disk" "NAME    KIND SIZE MIRROR ROLE
nvme0n1 disk   1G md0    active"
RDCTL_CONFIG=$conf run "list member disk json" 0 --list --json
validate "list member disk json" disks
# named disks: rd disks only
RDCTL_CONFIG=$conf run "list member disk, rd named" 1 --list rd0

IFS='|' read -r RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT <<<"$saved_env"
export RDCTL_SYSFS_ROOT RDCTL_PROC_ROOT RDCTL_DEV_ROOT
unset RDCTL_FAKE_LOG RDCTL_MDADM_CONF RDCTL_RESTORE_TIMEOUT
