#!/usr/bin/env bash
# Runs every Fuzz* target of the module for FUZZTIME each (default 60s), one
# after the other (Go fuzzes one target per process), then prints a table:
# time, executions, result and corpus size per target, and the totals.
# The corpus is the committed seed inputs (testdata/fuzz/<Target>) plus what
# the fuzzer kept in Go's cache ($GOCACHE/fuzz/<package>/<Target>). A
# failing input is written by Go to testdata/fuzz/<Target>/: commit it as a
# regression input (`make test` runs it) and fix the code.
#
# Interesting inputs are minimized for at most FUZZMINTIME (default 5s, Go's
# own is 60s): the office formats' zip inputs otherwise spend most of the
# fuzzing time being minimized. Go's count of executions leaves out the
# ones spent minimizing.
#
# Usage: build/fuzz.sh [TARGET_REGEXP]   (FUZZTIME, FUZZMINTIME, GO from the environment)
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-60s}
FUZZMINTIME=${FUZZMINTIME:-5s}
only=${1:-.}
cache="$($GO env GOCACHE)/fuzz"
module=$($GO list -m)
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# package directory and target name of every fuzz target, sorted.
targets=$(grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' . |
	sed -E 's#^\./(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]*)\($#\1 \2#; s#^\./[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]*)\($#. \1#' |
	grep -E " ($only)" | sort -u)
if [ -z "$targets" ]; then
	echo "no fuzz targets match $only" >&2
	exit 1
fi

count() { [ -d "$1" ] && find "$1" -type f | wc -l || echo 0; }

rows=() failed=0 total_s=0 total_exec=0 total_seed=0 total_cache=0
while read -r dir name; do
	pkg="$module/${dir#./}"; [ "$dir" = . ] && pkg=$module
	echo "== $name ($pkg), $FUZZTIME" >&2
	start=$(date +%s)
	if $GO test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINTIME" "./$dir" >"$log/$name" 2>&1; then
		result=ok
	else
		result=FAIL; failed=$((failed + 1))
		grep -v '^fuzz: elapsed' "$log/$name" | tail -15 >&2
	fi
	secs=$(($(date +%s) - start))
	execs=$(grep -Eo 'execs: [0-9]+' "$log/$name" | tail -1 | grep -Eo '[0-9]+' || echo 0)
	seed=$(count "$dir/testdata/fuzz/$name")
	kept=$(count "$cache/$pkg/$name")
	rows+=("| $name | ${dir#./} | ${secs} s | $execs | $seed | $kept | $result |")
	total_s=$((total_s + secs)); total_exec=$((total_exec + ${execs:-0}))
	total_seed=$((total_seed + seed)); total_cache=$((total_cache + kept))
done <<<"$targets"

n=$(wc -l <<<"$targets")
echo
echo "Fuzzing: $n targets, FUZZTIME=$FUZZTIME each (minimizing at most $FUZZMINTIME), $(nproc) CPUs, $(date -u +%Y-%m-%d)"
echo
echo "| target | package | wall time | executions (minimizing not counted) | committed inputs (testdata/fuzz) | fuzzer's corpus (GOCACHE) | result |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo "| **total** | | **$((total_s / 60)) min $((total_s % 60)) s** | **$total_exec** | **$total_seed** | **$total_cache** | **$failed failed** |"
[ "$failed" -eq 0 ]
