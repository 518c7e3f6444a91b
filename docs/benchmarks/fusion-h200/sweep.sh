#!/usr/bin/env bash
# The differential fusion sweep of docs/fusion.md in one device call: random
# chains fused against plain, bit for bit, over many seeds on each backend,
# the fusion, gosl and checks suites, and gpt2fwd's logits fused and plain.
#
# Build here (the device machine has no Go), from the repository root:
#   go test -c -o .bin/tests.test ./tests
#   go build -o .bin/gpt2fwd ./examples/gpt2fwd
#   tar -cJf .bin/bins.tar.xz -C .bin tests.test gpt2fwd && rm .bin/tests.test .bin/gpt2fwd
# Run there (device tool, carry [".gl", ".bin"]), from the repository root:
#   bash docs/benchmarks/fusion-h200/sweep.sh
# It unpacks .bin/bins.tar.xz when present, installs .gl/*.deb when present,
# writes one file per run and SUMMARY.txt under $OUT/fusion-sweep/, and packs
# them as $OUT/fusion-sweep.tar.xz. Settings, by environment:
#   SEEDS (40) seeds per backend from FIRST_SEED (9000), CHAINS (250) chains
#   per seed, JOBS (8) processes at once per backend, BACKENDS ("vulkan gl"),
#   GPT2FWD_ARGS (none; "-quick" for a software adapter), STOP_AFTER (none;
#   seconds from the start after which no new seed starts, so one device call
#   ends with its summary written).
set -u
SEEDS=${SEEDS:-40}
FIRST_SEED=${FIRST_SEED:-9000}
CHAINS=${CHAINS:-250}
JOBS=${JOBS:-8}
BACKENDS=${BACKENDS:-vulkan gl}
GPT2FWD_ARGS=${GPT2FWD_ARGS:-}
STOP_AFTER=${STOP_AFTER:-}
start=$(date +%s)
stop_at=
if [ -n "$STOP_AFTER" ]; then stop_at=$((start + STOP_AFTER)); fi
OUT=${OUT:?set OUT to the folder whose files come back}
device_bins="tests.test gpt2fwd"
# shellcheck source=/dev/null
. "$(dirname "$0")/../device-setup.sh"
out=$OUT/fusion-sweep
mkdir -p "$out"

# The tests run from tests/, where their relative paths point.
cd "$root/tests"
export SOFTGRAPH_REQUIRE_GPU=1
for backend in $BACKENDS; do
	seq "$FIRST_SEED" $((FIRST_SEED + SEEDS - 1)) |
		xargs -P "$JOBS" -I{} sh -c "if [ -n '$stop_at' ] && [ \$(date +%s) -ge '${stop_at:-0}' ]; then exit 0; fi; SOFTGRAPH_BACKEND=$backend SOFTGRAPH_FUSION_SEED={} SOFTGRAPH_FUSION_CHAINS=$CHAINS \
			'$bin/tests.test' -test.run '^TestRandomFusedChainsEqualUnfusedBitForBit\$' -test.v -test.timeout 60m \
			> '$out/chains-$backend-{}.txt' 2>&1"
	SOFTGRAPH_BACKEND=$backend "$bin/tests.test" -test.run 'Fus|Gosl|Check' -test.timeout 30m > "$out/suites-$backend.txt" 2>&1
	echo "exit $?" >> "$out/suites-$backend.txt"
	# shellcheck disable=SC2086 # the flags split into words
	SOFTGRAPH_BACKEND=$backend "$bin/gpt2fwd" $GPT2FWD_ARGS > "$out/gpt2fwd-$backend.txt" 2>&1
	echo "exit $?" >> "$out/gpt2fwd-$backend.txt"
done
cd "$root"

# One line per backend: chains run, differing, NaN-only, left out, and the
# dispatches fused; then every run that did not pass.
{
	echo "# $(date -u +%FT%TZ), $(($(date +%s) - start)) s: seeds $FIRST_SEED..$((FIRST_SEED + SEEDS - 1)), $CHAINS chains each, $JOBS processes per backend"
	for backend in $BACKENDS; do
		cat "$out"/chains-"$backend"-*.txt | awk -v b="$backend" '
			/random chains \(seed/ {
				for (i = 1; i <= NF; i++) {
					if ($(i+1) == "random" && $(i+2) == "chains") runs += $i
					if ($(i+1) == "dispatches" && $(i+2) == "plain,") plain += $i
					if ($(i+1) == "fused;") fused += $i
					if ($(i+1) == "differed;" && $(i-1) != "only") diff += $i
					if ($(i+1) == "differed" && $(i+2) == "only") nan += $i
					if ($(i+1) == "left" && $(i+2) == "out,") left += $i
				}
				seeds++
			}
			END { printf "%s: %d seeds reported, %d chains, %d differed, %d only in a NaN, %d left out; %d dispatches plain, %d fused\n", b, seeds, runs, diff, nan, left, plain, fused }'
		grep -L '^PASS$' "$out"/chains-"$backend"-*.txt | sed 's/^/  did not pass: /'
		grep -H '^exit ' "$out"/suites-"$backend".txt "$out"/gpt2fwd-"$backend".txt | sed 's/^/  /'
	done
} > "$out/SUMMARY.txt"
cat "$out/SUMMARY.txt"
tar -cJf "$OUT/fusion-sweep.tar.xz" -C "$OUT" fusion-sweep
