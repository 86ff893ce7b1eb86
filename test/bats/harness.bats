#!/usr/bin/env bats
# The suite's own harness: what helpers.bash does around every test
# (functrace off in rd_common_setup, the kernel-log check in
# rd_common_teardown) must leave every failure a failure, reported at
# the test's own line. Runs bats on plants/failures.bats, whose tests
# fail on purpose.

# No setup or teardown of its own: the inner tests have theirs, and the
# kernel bug one of them logs would fail this test's teardown too.

@test "harness: a failing helper, errexit in a helper, run's status and a logged kernel bug each fail their test" {
	local f=$BATS_TEST_DIRNAME/plants/failures.bats
	run bats --tap "$f"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(grep -c '^not ok ' <<<"$output")" -eq 4 ]
	[ "$(grep -c '^ok ' <<<"$output")" -eq 1 ]
	[ "$(grep -c "in test file $f, line" <<<"$output")" -eq 4 ]
	[[ "$output" == *"kernel log during the test:"* ]]
	[[ "$output" != *"went on"* ]]
}
