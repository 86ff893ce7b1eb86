# shellcheck shell=bash
# The newest mainline kernel source Debian ships (linux-source-X.Y in
# unstable or experimental), fetched through a private apt configuration
# (the system's sources are not touched) and unpacked once per package
# version into a clean tree that every user builds out of (O=): the debug
# kernel (test/kernel/build) and the module's mainline build
# (test/pkg/check-mainline) share it.
#
#   . test/kernel/newest-source.sh
#   ns_apt_update                 refresh the private package lists
#   read -r pkg ver < <(ns_newest)
#   tree=$(ns_fetch "$pkg" "$ver")   the unpacked source (or fails)
#
# MAINLINE_RC=1 also considers -rc packages; MAINLINE_PKG=linux-source-7.2
# names the package. Cache: $RDMIRROR_CI_CACHE (default /var/cache/rdmirror-ci).

NS_CACHE=${RDMIRROR_CI_CACHE:-/var/cache/rdmirror-ci}
NS_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
NS_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
NS_APT=$NS_CACHE/apt
NS_APT_OPTS=(
	-o "Dir::Etc::sourcelist=$NS_APT/sources.list"
	-o "Dir::Etc::sourceparts=/nonexistent"
	-o "Dir::Etc::preferencesparts=$NS_APT/prefs"
	-o "Dir::State::Lists=$NS_APT/lists"
	-o "Dir::Cache=$NS_APT/cache"
	-o "APT::Sandbox::User=root"
)

ns_setup() {
	mkdir -p "$NS_APT/lists/partial" "$NS_APT/cache/archives/partial" "$NS_APT/prefs"
	cat >"$NS_APT/sources.list" <<EOF
deb [signed-by=$NS_KEYRING] $NS_MIRROR unstable main
deb [signed-by=$NS_KEYRING] $NS_MIRROR experimental main
EOF
}

# ns_apt_update: 0 with fresh lists, 2 offline with an earlier run's lists
# (they still name a source; its tree may be cached), 1 with none.
ns_apt_update() {
	ns_setup
	apt-get "${NS_APT_OPTS[@]}" -q update && return 0
	ls "$NS_APT"/lists/*_Packages >/dev/null 2>&1 && return 2
	return 1
}

# ns_newest: "PACKAGE VERSION" of the newest linux-source-X.Y.
ns_newest() {
	local best_pkg="" best_ver="" pkg ver
	while read -r pkg ver; do
		case $ver in *~rc*) [ "${MAINLINE_RC:-0}" = 1 ] || continue ;; esac
		if [ -z "$best_ver" ] || dpkg --compare-versions "$ver" gt "$best_ver"; then
			best_pkg=$pkg
			best_ver=$ver
		fi
	done < <(
		if [ -n "${MAINLINE_PKG:-}" ]; then
			echo "$MAINLINE_PKG"
		else
			apt-cache "${NS_APT_OPTS[@]}" pkgnames linux-source- |
				grep -E '^linux-source-[0-9]+\.[0-9]+$'
		fi | xargs apt-cache "${NS_APT_OPTS[@]}" madison |
			awk -F'|' '{ gsub(/ /, "", $1); gsub(/ /, "", $2); print $1, $2 }' |
			sort -u
	)
	[ -n "$best_pkg" ] && echo "$best_pkg $best_ver"
}

# ns_fetch PKG VER: download and unpack PKG=VER once; print the tree. The
# "fetched" stamp is written only when all worked: a failed download or
# untar must leave nothing that later runs take for a source tree. Never
# configured in place: builds go to their own O= directories.
ns_fetch() {
	local pkg=$1 ver=$2 dir deb
	dir=$NS_CACHE/src/$pkg-$ver
	(
		ns_setup
		exec 8>"$NS_CACHE/src.lock"
		flock 8
		[ -f "$dir/fetched" ] && exit 0
		rm -rf "$dir" || exit 1
		mkdir -p "$dir/deb" || exit 1
		(cd "$dir/deb" && apt-get "${NS_APT_OPTS[@]}" -q download "$pkg=$ver") >&2 || exit 1
		deb=$(echo "$dir"/deb/*.deb)
		[ -f "$deb" ] || exit 1
		# The package holds /usr/src/linux-source-X.Y.tar.xz: take just that.
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO "./usr/src/$pkg.tar.xz" | tar -xJ -C "$dir" || exit 1
		mv "$dir/$pkg" "$dir/linux" || exit 1
		rm -rf "$dir/deb"
		touch "$dir/fetched" || exit 1
		# Older versions fetched over a day ago are not needed any more
		# (a younger one may still be in use by a run that began before
		# this version was uploaded), nor the in-place trees of the
		# layout before this one.
		for old in "$NS_CACHE/src/$pkg"-*; do
			[ "$old" != "$dir" ] && [ -n "$(find "$old/fetched" -mmin +1440 2>/dev/null)" ] &&
				rm -rf "$old"
		done
		find "$NS_CACHE" -mindepth 1 -maxdepth 1 -name 'linux-source-*' -exec rm -rf {} +
		exit 0
	) || return 1
	echo "$dir/linux"
}
