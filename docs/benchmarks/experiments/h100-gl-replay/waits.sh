#!/usr/bin/env bash
# Runs 2-4 of "The short graphs' gap is in the wait" (README.md): the
# experiment build of submits-switches.patch, interleaved variants, twice,
# on OpenGL, replay against the hand-written loops.
#
# Build here as submits.sh's header says (.bin/graphbench-exp from the
# patch; .bin/graphbench is only checked for), then
#   tar -cJf .bin/bins.tar.xz -C .bin graphbench graphbench-exp
# Run there (device tool, carry [".gl", ".bin"]), from the repository root,
# naming each variant as NAME=SWITCH[,SWITCH...] ("base" runs none):
#   bash docs/benchmarks/experiments/h100-gl-replay/waits.sh base \
#     blocking=SOFTGRAPH_EXP_BLOCKING=1 predict=SOFTGRAPH_EXP_PREDICT=1
# CONFIGS sets the rows. Writes $OUT/waits.tar.xz.
set -u
OUT=${OUT:?set OUT to the folder whose files come back}
CONFIGS=${CONFIGS:-life64_g2_x200,tiny_g1_x1000,tiny_g8_x1000,life512_g2_x200,256k_x1000,1m_x500}
device_bins="graphbench graphbench-exp"
# shellcheck source=/dev/null
. "$(dirname "$0")/../../device-setup.sh"
o=$OUT/waits
mkdir -p "$o"
for i in 1 2; do
	for v in "$@"; do
		name=${v%%=*}
		settings=()
		if [ "$name" != "$v" ]; then IFS=, read -r -a settings <<< "${v#*=}"; fi
		env SOFTGRAPH_BACKEND=gl "${settings[@]}" timeout 100 "$bin/graphbench-exp" -configs "$CONFIGS" \
			-rounds 100 -budget 2s -wide -paths replay,raw_chunked,gpu > "$o/$name-$i.txt" 2>&1
	done
	tar -cJf "$OUT/waits.tar.xz" -C "$OUT" waits
done
