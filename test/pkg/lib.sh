# shellcheck shell=bash
# Shared by test/pkg/check-* and test/lint: one line per check, "ok NAME" or
# "not ok NAME", and a closing "N passed, N failed" line.

PASSED=0
FAILED=0
# Where each check's output goes; shown after a failure.
CHECK_LOG=$(mktemp /tmp/rdmirror-check.XXXXXX)

ok() {
	PASSED=$((PASSED + 1))
	echo "ok $1"
}

not_ok() {
	FAILED=$((FAILED + 1))
	echo "not ok $1"
}

# check NAME COMMAND...: run COMMAND with its output in CHECK_LOG; on failure
# show the log's last lines indented, so the reason is on screen.
check() {
	local name=$1
	shift
	if "$@" >"$CHECK_LOG" 2>&1; then
		ok "$name"
	else
		not_ok "$name"
		tail -n 40 "$CHECK_LOG" | sed 's/^/    # /'
	fi
}

# converted_md0 COMMAND...: run COMMAND in a mount namespace whose
# /sys/block holds md0 as rdctl --release leaves a mirror (raid1, three
# slots, sdb and sdc write-mostly, no RAM member), and whose
# /etc/rdmirror.conf (an overlay: the host's stays as it is) names md0.
# What the removal guards (scripts/removal-check) must refuse on.
converted_md0() {
	local d rc=0
	d=$(mktemp -d /tmp/rdmirror-md0.XXXXXX)
	mkdir -p "$d/up" "$d/work"
	echo "md0 auto" >"$d/up/rdmirror.conf"
	# shellcheck disable=SC2016 # the inner shell's variables
	unshare -m bash -c '
		set -e
		mount -t overlay rdtest-etc -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc
		mount -t tmpfs rdtest-sysblock /sys/block
		m=/sys/block/md0/md
		mkdir -p $m/dev-sdb $m/dev-sdc
		echo raid1 >$m/level
		echo clean >$m/array_state
		echo 3 >$m/raid_disks
		echo 1 >$m/degraded
		echo idle >$m/sync_action
		echo none >$m/sync_completed
		echo 1.2 >$m/metadata_version
		echo in_sync,write_mostly >$m/dev-sdb/state
		echo 0 >$m/dev-sdb/slot
		echo in_sync,write_mostly >$m/dev-sdc/state
		echo 1 >$m/dev-sdc/slot
		shift
		"$@"' bash "$d" "$@" || rc=$?
	rm -rf "$d"
	return "$rc"
}

# note TEXT: a comment line that is neither ok nor not ok.
note() {
	echo "# $*"
}

# finish: the summary line; exit status non-zero on any failure.
finish() {
	rm -f "$CHECK_LOG"
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

# readme_doc_files DOCDIR: the files a package must hold in DOCDIR for the
# README's links to work there: README.md, every docs/X.md it links to, and
# every docs/*.md with what they link to (each other, images), one a line,
# uncompressed.
readme_doc_files() {
	local top f
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	{
		echo README.md
		grep -o '](docs/[^)#]*' "$top/README.md" | sed 's/^](//'
		for f in "$top"/docs/*.md; do
			echo "docs/${f##*/}"
			# (relative links: not a scheme, not an anchor alone)
			grep -o '](\([^):#]*\)' "$f" | sed 's/^](//; s/)$//; s/#.*//' | grep . | sed 's|^|docs/|' || true
		done
	} | sort -u | sed "s|^|$1/|"
}

# stage_module DIR: a private copy of the module sources (and VERSION, which
# module/Kbuild reads) in DIR, so checks never race builds in the work tree.
stage_module() {
	local top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	mkdir -p "$1"
	cp "$top/VERSION" "$1/"
	cp -r "$top/module" "$1/"
	find "$1/module" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o \
		-name '*.mod.c' -o -name '.*.cmd' -o -name modules.order -o \
		-name Module.symvers \) -delete
}

# default_kvers: the kernels to build for when KVERS is not set, on one
# line: the newest installed Debian 6.1 and 6.12 with headers, as the VM
# tests pick them (test/vm/kernels.sh; Debian moves the 6.1 ABI, as from
# 6.1.0-56 to -57).
default_kvers() {
	local k
	# shellcheck source=test/vm/kernels.sh
	k=$(. "$(dirname "${BASH_SOURCE[0]}")/../vm/kernels.sh" && rd_test_kernels) || return 1
	tr '\n' ' ' <<<"$k" | sed 's/ $//'
}
