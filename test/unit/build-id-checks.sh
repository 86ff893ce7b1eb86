#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # tmp, utils, pass, fail: set by run-checks.sh
# scripts/build-id (the build identity rdctl and the module carry) and
# scripts/changelog (the packages' changelog from NEWS), on trees made here:
# a git tree, the same tree without .git, with BUILD_ID and without.
# Sourced by run-checks.sh.

bid=$utils/../scripts/build-id
chl=$utils/../scripts/changelog
g() { git -C "$tmp/bt" -c user.name=t -c user.email=t@example.org "$@" >/dev/null 2>&1; }
id_is() {	# NAME DIR WANT: build-id of DIR prints WANT
	local got
	got=$(bash "$bid" "$2" 2>&1)
	if [ "$got" = "$3" ]; then pass; else fail "build-id $1: '$got', want '$3'"; fi
}

rm -rf "$tmp/bt"
mkdir -p "$tmp/bt/sub"
echo 1.2.3 >"$tmp/bt/VERSION"
echo a >"$tmp/bt/file"
g init -q && g add VERSION file && g commit -q -m one
first=$(git -C "$tmp/bt" rev-parse --short=12 HEAD)
id_is "git, the release commit" "$tmp/bt" "1.2.3+0-g$first"
echo b >"$tmp/bt/file"
g commit -q -a -m two
second=$(git -C "$tmp/bt" rev-parse --short=12 HEAD)
id_is "git, a commit after it" "$tmp/bt" "1.2.3+1-g$second"
echo c >"$tmp/bt/file"
id_is "git, uncommitted changes" "$tmp/bt" "1.2.3+1-g$second-dirty"
g checkout -q file
: >"$tmp/bt/untracked.o"
id_is "git, untracked files are not changes" "$tmp/bt" "1.2.3+1-g$second"
g tag v1.2.3 "$second"
id_is "git, counted from the tag" "$tmp/bt" "1.2.3+0-g$second"
# a tree inside another git tree (build/deb/...) is not that tree's commit
echo 1.2.3 >"$tmp/bt/sub/VERSION"
id_is "a tree inside a git tree" "$tmp/bt/sub" "1.2.3"
echo "1.2.3+1-g$second" >"$tmp/bt/sub/BUILD_ID"
id_is "BUILD_ID inside a git tree" "$tmp/bt/sub" "1.2.3+1-g$second"
rm -rf "$tmp/bt/.git"
id_is "no .git, BUILD_ID" "$tmp/bt/sub" "1.2.3+1-g$second"
id_is "no .git, no BUILD_ID: the release" "$tmp/bt" "1.2.3"
echo '1.2.3"; evil' >"$tmp/bt/BUILD_ID"
if ! bash "$bid" "$tmp/bt" >/dev/null 2>&1; then pass; else fail "build-id: a BUILD_ID that is no identity was taken"; fi

# the changelog: the release's items, and for a later build the
# unreleased ones first; dpkg reads what it writes
cat >"$tmp/bt/NEWS.md" <<'NEWS'
# NEWS

## Unreleased

- Later thing, written
  on two lines.

## 1.2.3 (2026-12-01)

Intro line.

- First thing.
- Second thing.

## 1.2.2

- Old thing.
NEWS
d="Sun, 06 Dec 2026 12:00:00 +0000"
m="T <t@example.org>"
bash "$chl" deb "$tmp/bt/NEWS.md" 1.2.3 1.2.3 "$d" "$m" 1 >"$tmp/bt/changelog.rel"
if grep -qx '  \* First thing.' "$tmp/bt/changelog.rel" && grep -qx '  \* Intro line.' "$tmp/bt/changelog.rel" &&
	! grep -q 'Later thing\|Old thing' "$tmp/bt/changelog.rel"; then pass
else fail "changelog of the release: $(cat "$tmp/bt/changelog.rel")"; fi
bash "$chl" deb "$tmp/bt/NEWS.md" 1.2.3 "1.2.3+1-g$second" "$d" "$m" 1 >"$tmp/bt/changelog.snap"
if grep -q "^  \* Build 1.2.3+1-g$second" "$tmp/bt/changelog.snap" &&
	grep -qx '  \* Later thing, written' "$tmp/bt/changelog.snap" &&
	grep -qx '    on two lines.' "$tmp/bt/changelog.snap" && grep -qx '  \* Second thing.' "$tmp/bt/changelog.snap"; then pass
else fail "changelog of a later build: $(cat "$tmp/bt/changelog.snap")"; fi
if command -v dpkg-parsechangelog >/dev/null; then
	if [ "$(dpkg-parsechangelog -l "$tmp/bt/changelog.snap" -S Version 2>&1)" = 1.2.3-1 ]; then pass
	else fail "changelog: dpkg-parsechangelog: $(dpkg-parsechangelog -l "$tmp/bt/changelog.snap" 2>&1)"; fi
fi
bash "$chl" rpm "$tmp/bt/NEWS.md" 1.2.3 1.2.3 "Sun Dec 06 2026" "$m" 1 >"$tmp/bt/changelog.rpm"
if [ "$(head -n 1 "$tmp/bt/changelog.rpm")" = "* Sun Dec 06 2026 $m - 1.2.3-1" ] &&
	grep -qx -- '- First thing.' "$tmp/bt/changelog.rpm"; then pass
else fail "rpm changelog: $(cat "$tmp/bt/changelog.rpm")"; fi
# VERSION raised before NEWS names it: the unreleased items; with
# neither section, no changelog
bash "$chl" deb "$tmp/bt/NEWS.md" 1.2.4 1.2.4 "$d" "$m" 1 >"$tmp/bt/changelog.next" 2>&1
if grep -q '^  \* Release 1.2.4 (NEWS has no section for it yet):' "$tmp/bt/changelog.next" &&
	grep -qx '  \* Later thing, written' "$tmp/bt/changelog.next"; then pass
else fail "changelog of a version NEWS has no section for: $(cat "$tmp/bt/changelog.next")"; fi
sed -i '/^## Unreleased/,/^## 1.2.3/{/^## 1.2.3/!d}' "$tmp/bt/NEWS.md"
if ! bash "$chl" deb "$tmp/bt/NEWS.md" 1.2.4 1.2.4 "$d" "$m" 1 >/dev/null 2>&1; then pass
else fail "changelog: a version NEWS has no section for, and nothing unreleased, was taken"; fi
