#!/usr/bin/env bats
# Not a suite: harness.bats runs it and wants each test but the last to
# fail, each at its own line, with nothing after a failure run. Every
# failure here is planted on purpose.

# bats' "load helpers", spelled so that shellcheck follows it
# shellcheck source=test/bats/helpers.bash
. "$BATS_TEST_DIRNAME/../helpers.bash"

setup() { rd_common_setup; }
teardown() { rd_common_teardown; }

@test "a helper returns non-zero (rdctl --detach of no disk)" {
	rd_add $((4 * MiB)) >/dev/null
	rd_remove rd9
	echo "went on after a failed helper"
}

@test "a helper's command fails under errexit (a read of no disk's stat)" {
	RD_TEST_HDDS=nosuch rd_hdd_writes x
	echo "went on after a failed read"
}

@test "run's status is checked" {
	run rdctl --detach rd9
	[ "$status" -eq 0 ]
	echo "went on after a failed status check"
}

@test "a kernel bug logged during the test fails it in the teardown" {
	echo "BUG: planted by test/bats/plants/failures.bats" >/dev/kmsg
}

@test "the control: helpers run without bats' DEBUG trap" {
	[[ $- != *T* ]]
}
