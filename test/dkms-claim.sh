# shellcheck shell=bash
# Sourced by test/vm/build-module and test/pkg/check-dkms, the two tests
# that add rdmirror to this machine's DKMS (and, for check-dkms, install
# its packages). DKMS's tree is shared: /usr/src/rdmirror-VERSION and
# /var/lib/dkms/rdmirror/VERSION serve every kernel. So:
#  - one test at a time holds the claim (a lock) while it adds and removes;
#  - while what a test added is in place, a mark stays on disk. A run
#    killed in between (CI's time limit, a session's end, ^C) leaves the
#    mark, and the next test to claim DKMS knows that what it finds is a
#    test's leftover, not an administrator's install, and removes it.
#    Without the mark, an rdmirror found in DKMS is not the tests' to touch.

DKMS_LOCK=${RD_DKMS_LOCK:-/run/lock/rdmirror-test-dkms.lock}
DKMS_MARK=${RD_DKMS_MARK:-/var/lib/rdmirror-test/dkms-in-use}

# dkms_claim VERSION: wait for the lock (held until the shell exits or
# dkms_unclaim), then remove a killed run's leftover, if the mark says so.
dkms_claim() {
	exec {dkms_lock_fd}>"$DKMS_LOCK"
	flock "$dkms_lock_fd"
	[[ -e "$DKMS_MARK" ]] || return 0
	echo "# removing rdmirror $1 left in DKMS by a killed test run ($DKMS_MARK)" >&2
	if [[ "$(dpkg-query -W -f='${Status}\n' rdmirror rdmirror-dkms 2>/dev/null)" == *"ok installed"* ]]; then
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q rdmirror rdmirror-dkms >&2 || return 1
	fi
	dkms remove -m rdmirror -v "$1" --all >/dev/null 2>&1 || true
	rm -rf "/usr/src/rdmirror-$1"
	rm -f "$DKMS_MARK"
}

# dkms_mark: from now on, what is in DKMS is this test's (set before adding).
dkms_mark() {
	mkdir -p "${DKMS_MARK%/*}"
	: >"$DKMS_MARK"
}

# dkms_unmark: this test's additions are gone (after removing them).
dkms_unmark() {
	rm -f "$DKMS_MARK"
}

dkms_unclaim() {
	exec {dkms_lock_fd}>&-
}
