#!/usr/bin/env bash
# Install everything the build and the tests need, from Debian's packages
# and PyPI. Quick when all is there already; needs root otherwise.
set -euo pipefail

debs=(
	build-essential pkg-config libjansson-dev libkmod-dev libsmartcols-dev kmod
	linux-headers-amd64 linux-image-amd64
	linux-headers-6.12-amd64 linux-image-6.12-amd64
	qemu-system-x86 busybox-static udev mdadm fio bats e2fsprogs util-linux
	valgrind shellcheck sparse prometheus	# promtool: the metrics and alert rules of test/monitoring
	clang libclang-rt-dev	# test/fuzz: libFuzzer is in libclang-rt, only recommended by clang
	python3-jsonschema python3-pip man-db groff-base
	gnuplot-nox	# make bench: the chart in docs/BENCHMARKS.md
	liblz4-dev libzstd-dev libxxhash-dev	# make bench-copy: test/bench/zcomp-cost.c
	linux-perf	# make bench -p, test/bench/md-profile: profiles in the guest
	dkms dh-dkms debhelper lintian dpkg-dev linux-source-6.12
	rpm rpmlint	# make check-pkg: the RPM spec is built and checked (not installed)
	flex bison bc libelf-dev libssl-dev xz-utils mmdebstrap
)

missing=()
for p in "${debs[@]}"; do
	grep -q 'ok installed' < <(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	echo "deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ! command -v vng >/dev/null 2>&1; then
	echo "deps: installing virtme-ng"
	# Debian's pip refuses system-wide installs; a pyenv pip does not.
	pip install -q virtme-ng 2>/dev/null ||
		pip install -q --break-system-packages virtme-ng
fi
command -v vng >/dev/null

# The Ansible role's checks (test/ansible/): pinned, as CI's results must
# not move with a new ansible-lint rule.
if ! command -v ansible-playbook >/dev/null 2>&1 || ! command -v ansible-lint >/dev/null 2>&1; then
	echo "deps: installing ansible-core and ansible-lint"
	pip install -q ansible-core==2.19.14 ansible-lint==26.10.1 2>/dev/null ||
		pip install -q --break-system-packages ansible-core==2.19.14 ansible-lint==26.10.1
fi
command -v ansible-playbook >/dev/null
command -v ansible-lint >/dev/null
