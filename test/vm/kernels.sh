# shellcheck shell=bash
# The kernels the suite runs on: Debian's 6.1 and 6.12, newest build of
# each. Sourced by the runners; prints "version" lines.
rd_test_kernels() {
	local series v
	for series in 6.1 6.12; do
		v=$(find /boot -maxdepth 1 -name "vmlinuz-${series}.*-amd64" -printf '%f\n' |
			sed 's/^vmlinuz-//' | sort -V | tail -n 1)
		if [[ -z "$v" || ! -d "/lib/modules/$v/build" ]]; then
			echo "no Debian $series kernel with headers installed (run test/deps.sh)" >&2
			return 1
		fi
		echo "$v"
	done
}
