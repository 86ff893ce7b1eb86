#!/usr/bin/env bats
# The suite's own harness: what helpers.bash does around every test
# (functrace off in rd_common_setup, the kernel-log check in
# rd_common_teardown) must leave every failure a failure, reported at
# the test's own line. Runs bats on plants/failures.bats, whose tests
# fail on purpose. And the watchdog that ends a hung suite's VM
# (test/vm/watchdog) must name the test and the task that hang, and
# leave a suite that goes on alone.

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

@test "harness: the watchdog names a hung test and its blocked task, and leaves a suite that goes on" {
	local out=$BATS_TEST_TMPDIR suite dd appender
	# a suite that goes on: a result every 2 s for 12 s, the limit 5 s
	printf '1..9\n' >"$out/results.tap"
	(for i in 1 2 3 4 5 6; do sleep 2; echo "ok $i goes on" >>"$out/results.tap"; done) &
	appender=$!
	RD_WATCHDOG_REBOOT=0 run timeout 60 "$RD_TOP/test/vm/watchdog" "$out" 5 "$appender"
	echo "$output"
	[ "$status" -eq 0 ]
	[ ! -e "$out/hang.txt" ]

	# a hung one: its test's read waits in the kernel on a suspended
	# device mapper target
	printf '1..3\nok 1 first\n' >"$out/results.tap"
	echo "hang.bats 2: a planted hang" >"$out/current"
	dmsetup create rdtest-hang --table "0 8 zero"
	dmsetup suspend rdtest-hang
	dd if=/dev/mapper/rdtest-hang of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null &
	dd=$!
	sleep 600 &
	suite=$!
	RD_WATCHDOG_REBOOT=0 RD_CURRENT_TEST=$out/current run timeout 60 \
		"$RD_TOP/test/vm/watchdog" "$out" 5 "$suite"
	kill "$suite"
	dmsetup resume rdtest-hang
	wait "$dd"
	dmsetup remove rdtest-hang
	echo "$output"
	cat "$out/hang.txt"
	[ "$status" -eq 1 ]
	grep -qx "hang: no test ended in 5 s" "$out/hang.txt"
	grep -qx "running: hang.bats 2: a planted hang" "$out/hang.txt"
	grep -qx "last result: ok 1 first" "$out/hang.txt"
	# the blocked read, with its kernel stack
	grep -A1 "^--- blocked: $dd dd " "$out/hang.txt" | grep -q '^\[<'
	grep -q "^--- /proc/mdstat" "$out/hang.txt"
}
