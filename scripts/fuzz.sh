#!/usr/bin/env bash
# Runs every fuzz target of every gpubill package for a set time.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]      (default 10)
#
# Environment: FUZZ_MINIMIZE (-fuzzminimizetime: how long to minimise each new
# interesting or failing input: a count of calls, "50x" by default, or a time
# such as "5s"; the fuzzer minimises every new interesting input too, and a
# time bound ate most of the run of the slow targets that read whole files),
# FUZZ_PARALLEL (fuzzing workers, default: go's, the number of CPUs),
# FUZZ_MATCH (a regexp: only targets whose "package target" matches).
#
# Prints one line per target: executions, new interesting inputs, result.
# A target whose stored corpus took the whole time (the fuzzer first runs
# every stored input, "gathering baseline coverage") runs once more for
# SECONDS+15, so that it reaches new inputs too.
# A crash makes the script exit 1 after the other targets ran; the fuzzer
# writes the failing input to <pkg>/testdata/fuzz/<Target>/, where it stays
# as a regression seed that every `go test` runs. An error of the fuzzing
# engine itself (no "Failing input written"; seen on a loaded machine:
# "context deadline exceeded") is retried once, then reported as "engine
# error" without failing the run.
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0

secs=${1:-10}
case "$secs" in
'' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET]" >&2; exit 2 ;;
esac
minimize=${FUZZ_MINIMIZE:-50x}
parallel=()
if [ -n "${FUZZ_PARALLEL:-}" ]; then parallel=(-parallel "$FUZZ_PARALLEL"); fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
crashed=0 targets=0 total_execs=0
printf '%-40s %-26s %12s %6s  %s\n' package target execs new result
# fuzz_once SECONDS fuzzes $target of $pkg (twice on an error of the
# engine itself) and sets result, execs and newi.
fuzz_once() {
	result=""
	for try in 1 2; do
		if go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "${1}s" \
			-fuzzminimizetime "$minimize" "${parallel[@]}" >"$log" 2>&1; then
			result=ok
			break
		fi
		if grep -q 'Failing input written' "$log"; then
			result=CRASH
			break
		fi
		result="engine error"
		echo "-- $pkg $target: fuzzing engine error (no failing input), try $try:" >&2
		tail -n 5 "$log" >&2
	done
	# The last progress line holds the totals:
	# "fuzz: elapsed: 10s, execs: 123456 (12345/sec), new interesting: 7 (total: 40)".
	last=$(grep -E '^fuzz: elapsed: .*execs: ' "$log" | tail -n 1 || true)
	execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
	newi=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
}

for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
		if [ -n "${FUZZ_MATCH:-}" ] && ! [[ "$pkg $target" =~ $FUZZ_MATCH ]]; then
			continue
		fi
		targets=$((targets + 1))
		fuzz_once "$secs"
		if [ -z "$execs" ] && [ "$result" = ok ]; then
			# The time went to running the stored corpus (the baseline
			# coverage) before any new input: once more, with time for
			# new ones.
			fuzz_once $((secs + 15))
			if [ -z "$execs" ] && [ "$result" = ok ]; then
				result="ok (seeds only: the corpus took the time)"
			fi
		fi
		total_execs=$((total_execs + ${execs:-0}))
		printf '%-40s %-26s %12s %6s  %s\n' "${pkg#github.com/gpubill/gpubill/}" "$target" "${execs:--}" "${newi:--}" "$result"
		if [ "$result" = CRASH ]; then
			crashed=$((crashed + 1))
			grep -E -A 30 -- '--- FAIL|Failing input written|panic:' "$log" | head -n 60 >&2
		fi
	done
done
echo "fuzz: $targets targets, ${secs}s each, $total_execs executions, $crashed crashed"
if [ "$crashed" -gt 0 ]; then
	echo "fuzz: rerun a failing input with: go test ./PKG -run '^TARGET/HASH\$' -v" >&2
	exit 1
fi
