# shellcheck shell=bash
# Sourced by test/check and test/check-quick: the totals over the
# runners' logs. The caller sets passed=0 failed=0 and counted=().

# count_from LOG: add the "N passed, N failed" line a runner printed (and
# keep LOG in counted, for a list of the failures at the end). A log with
# no such line counts as one failure.
# result_line LOG: the last "N passed, N failed" line a runner printed in
# LOG, or nothing.
result_line() {
	grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" 2>/dev/null | tail -n 1 || true
}

count_from() {
	local line
	counted+=("$1")
	line=$(result_line "$1")
	if [[ -z "$line" ]]; then
		echo "${0##*/}: $1 has no result line" >&2
		failed=$((failed + 1))
		return
	fi
	passed=$((passed + $(awk '{ print $1 }' <<<"$line")))
	failed=$((failed + $(awk '{ print $3 }' <<<"$line")))
}
