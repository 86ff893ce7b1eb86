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
