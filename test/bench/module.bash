# shellcheck shell=bash
# rdmirror.ko for a bench's VM, built outside the work tree (so that a
# build for the VM's kernel leaves the tree's own build alone); sourced by
# test/bench/ab and test/bench/md-profile, whose die() these call.

# bench_worktree_module TOP DIR: TOP's module/ and VERSION, edits
# included, build products left out, into DIR.
bench_worktree_module() {
	(cd "$1" && find module \( -name '*.[ch]' ! -name '*.mod.c' \) -o -name Kbuild -o -name Makefile |
		tar -cf - -T - VERSION) | tar -x -C "$2"
}

# bench_build_module KVER DIR [WHAT]: build DIR/module for kernel KVER (its
# log in DIR/build.log, shown on failure); WHAT, " (a)" say, names the
# module in the messages.
bench_build_module() {
	local kver=$1 dir=$2 what=${3:-}
	make -s -C "/lib/modules/$kver/build" M="$dir/module" modules >"$dir/build.log" 2>&1 ||
		{ cat "$dir/build.log" >&2; die "building the module$what for $kver failed"; }
	[[ -f "$dir/module/rdmirror.ko" ]] || die "no rdmirror.ko built$what"
}
