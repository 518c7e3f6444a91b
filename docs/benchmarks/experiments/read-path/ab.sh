#!/usr/bin/env bash
# One switch at 1 and at 0, interleaved, two rounds: the patch's round-trip
# benchmarks (BenchmarkExpRoundTrip, BenchmarkExpReplayThenRead/A) on each
# backend named, then examples/transformer (small default and -gpt2) on
# Vulkan. Build as join.sh says; run from the repository root:
#   bash docs/benchmarks/experiments/read-path/ab.sh SWITCH "BACKENDS" [BENCHTIME]
# preencode*-*.txt are SOFTGRAPH_PREENCODE "vulkan" 0.4s, background-*.txt
# SOFTGRAPH_EXP_BACKGROUND "vulkan gl" 0.3s (README.md). Writes $OUT/ab/ and
# $OUT/ab.tar.xz.
set -u
switch=$1
backends=$2
benchtime=${3:-0.3s}
mkdir -p "$OUT/ab"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/ab/gpu.txt" 2>&1
# shellcheck source=/dev/null
. "$(dirname "$0")/setup.sh"
for round in 1 2; do
	for v in 1 0; do
		for b in $backends; do
			(cd tests && env "SOFTGRAPH_BACKEND=$b" "$switch=$v" timeout 40 ../.bin/tests-exp.test -test.run XXX \
				-test.bench 'ExpRoundTrip|ExpReplayThenRead/A' -test.count 2 -test.benchtime "$benchtime" \
				> "$OUT/ab/roundtrip-$b-$v-$round.txt" 2>&1)
		done
		env "$switch=$v" timeout 60 .bin/tf-exp > "$OUT/ab/small-$v-$round.txt" 2>&1
		env "$switch=$v" timeout 90 .bin/tf-exp -gpt2 > "$OUT/ab/gpt2-$v-$round.txt" 2>&1
	done
	tar -cJf "$OUT/ab.tar.xz" -C "$OUT" ab
done
