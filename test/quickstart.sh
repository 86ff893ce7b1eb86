#!/usr/bin/env bash
# The README's Quick start, as the tests that run it read it: each command
# of its sh block (continued lines joined, comments dropped), one a line,
# after the test that runs it and a tab:
#   deps     apt-get install of the build dependencies (test/pkg/check-dkms)
#   build    make deb (test/pkg/check-dkms)
#   install  apt-get install of the built .debs (test/pkg/check-dkms)
#   guest    an rdctl command before the reboot (test/boot: trixie's setup)
#   reboot   the reboot (test/boot: trixie's setup ends with it)
#   booted   an rdctl command after the reboot (test/boot: trixie's verify)
# A command none of them knows is an error (exit 1): a Quick start line
# no test runs must not go unnoticed.
#
#   test/quickstart.sh [README]
set -euo pipefail
readme=${1:-$(cd "$(dirname "$0")/.." && pwd)/README.md}

block=$(awk '
	/^## / { inside = ($0 == "## Quick start") }
	inside && /^```sh$/ { code = 1; next }
	inside && code && /^```$/ { exit }
	inside && code { print }' "$readme")
[[ -n $block ]] || { echo "quickstart: no sh block under \"## Quick start\" in $readme" >&2; exit 1; }

rebooted=0 n=0
while IFS= read -r cmd; do
	# (a comment starts at " #": none of the commands holds one)
	cmd=$(sed -E 's/[[:space:]]+#.*$//; s/[[:space:]]+$//' <<<"$cmd")
	[[ -n $cmd ]] || continue
	case $cmd in
	"apt-get install ./build/deb/"*) kind=install ;;
	"apt-get install "*) kind=deps ;;
	"make deb") kind=build ;;
	reboot) kind=reboot rebooted=1 ;;
	"rdctl "*) if ((rebooted)); then kind=booted; else kind=guest; fi ;;
	*)
		echo "quickstart: no test runs this Quick start command: $cmd" >&2
		exit 1
		;;
	esac
	printf '%s\t%s\n' "$kind" "$cmd"
	n=$((n + 1))
done < <(sed -e ':a' -e '/\\$/N; s/\\\n[[:space:]]*//; ta' <<<"$block")
((n > 0)) || { echo "quickstart: no command in the Quick start of $readme" >&2; exit 1; }
