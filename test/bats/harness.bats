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
	# each at the test's own line: the helper's call, the helper's call,
	# the status check, and the teardown's finding at the test's last line
	# (with functrace on, a helper's failure ends its trace with the same
	# line: the control test tells those runs apart)
	[ "$(grep -cE "in test file $f, line (15|20|26|31)\)" <<<"$output")" -eq 4 ]
	[ "$(grep -c "in test file $f, line" <<<"$output")" -eq 4 ]
	[[ "$output" == *"kernel log during the test:"* ]]
	[[ "$output" != *"went on"* ]]
}
