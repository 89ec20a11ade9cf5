#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME (default 60s) and prints each one's exec count.
# Usage: scripts/fuzz.sh [FUZZTIME] [-parallel N]. Exits non-zero if any target fails; a
# failing input is written under the package's testdata/fuzz/<Target>/ by go test.
set -u
cd "$(dirname "$0")/.."
fuzztime=${1:-60s}
parallel=${FUZZ_PARALLEL:-1}
targets=(
	"./live FuzzParseMandate"          # mandate loader
	"./live FuzzParsePositions"        # positions parser
	"./live FuzzCheckMandate"          # the check itself
	"./live FuzzExtractors"            # order extractors and quote parsers (live/profile.go)
	"./live/toolbroker FuzzReplies"    # tool-shaped broker replies
	"./engine/scan FuzzScan"           # scanner
	"./live/redact FuzzRedact"         # redaction
	"./config FuzzParse"               # config.toml
	"./cmd/cockpit FuzzBatchLine"      # one check --batch line
	"./engine FuzzPlaceOrderArgs"      # MCP place_order arguments through the chokepoint
	"./live/jsonv FuzzRoundTrip"       # JSON encode/decode
	"./live/jsonv FuzzParseMatchesReference" # in-place parser against the previous one
	"./live/money FuzzMatchesShopspring"     # udecimal fast path against shopspring
)
failed=0
printf '%-14s %-28s %12s %s\n' package target execs result
for t in "${targets[@]}"; do
	set -- $t
	pkg=$1 name=$2
	log=$(mktemp)
	if go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel "$parallel" >"$log" 2>&1; then
		result=ok
	else
		result=FAIL
		failed=1
	fi
	execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | awk '{print $2}')
	printf '%-14s %-28s %12s %s\n' "${pkg#./}" "$name" "${execs:-?}" "$result"
	if [ "$result" = FAIL ]; then
		tail -30 "$log"
	fi
	rm -f "$log"
done
exit $failed
