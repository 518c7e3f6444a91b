#!/usr/bin/env bash
# The decode kernels on NVIDIA as one device call: BenchmarkDecodeKernels
# with every MatVecOp.ThreadsPerRow (-decode.sweep), then the GPT-2-sized
# transformer's replay with its per-kernel profile (GPT-2-sized and the small
# default model; beside an earlier build's when .bin/transformer-base is
# there), on Vulkan.
#
# Build here (the device machine has no Go), from the repository root:
#   go test -c -o .bin/shaders.test ./shaders
#   go build -o .bin/transformer ./examples/transformer
#   tar -cJf .bin/bins.tar.xz -C .bin shaders.test transformer && rm .bin/shaders.test .bin/transformer
# Run there (device tool, carry [".gl", ".bin"]), from the repository root:
#   bash docs/benchmarks/decode-h200/sweep.sh
# Writes $OUT/decode-*.txt. SWEEP=0 skips the benchmark (SWEEP below); MODELS (gpt2 small)
# and REPEATS (2) pick the transformer runs. Settings, by environment: BW (the GPU's memory
# bandwidth in GB/s, for the share-of-bandwidth columns; 4800, an H200's;
# an H100 SXM's is 3350), BACKEND (vulkan).
set -u
OUT=${OUT:?set OUT to the folder whose files come back}
BW=${BW:-4800}
BACKEND=${BACKEND:-vulkan}
device_bins="shaders.test transformer"
# shellcheck source=/dev/null
. "$(dirname "$0")/../device-setup.sh"
export SOFTGRAPH_BACKEND=$BACKEND SOFTGRAPH_REQUIRE_GPU=1
# SWEEP=1: every ThreadsPerRow; SWEEP=shape: the shapes' own choice only
# (with .bin/shaders-base.test, an earlier build's, beside it, interleaved;
# KRUNS, 2, times).
sweep_args=(-test.run '^$' -test.bench BenchmarkDecodeKernels -test.benchtime 20x -decode.bw "$BW")
case "${SWEEP:-1}" in
1) (cd "$root/shaders" && timeout 200 "$bin/shaders.test" "${sweep_args[@]}" -test.count 2 -decode.sweep) > "$OUT/decode-sweep-$BACKEND.txt" 2>&1
	echo "sweep: exit $?" ;;
shape)
	for i in $(seq "${KRUNS:-2}"); do
		(cd "$root/shaders" && timeout 100 "$bin/shaders.test" "${sweep_args[@]}") > "$OUT/decode-kernels-$BACKEND-$i.txt" 2>&1
		echo "kernels $i: exit $?"
		if [ -x "$bin/shaders-base.test" ]; then
			(cd "$root/shaders" && timeout 100 "$bin/shaders-base.test" "${sweep_args[@]}") > "$OUT/decode-kernels-$BACKEND-base-$i.txt" 2>&1
			echo "kernels-base $i: exit $?"
		fi
	done ;;
esac
# The transformer, GPT-2-sized and the small default model; with
# .bin/transformer-base (an earlier build's), each run beside that build's,
# twice, interleaved.
for i in $(seq "${REPEATS:-2}"); do
	for model in ${MODELS:-gpt2 small}; do
		args=(-profile -bw "$BW" -check 1)
		if [ "$model" = gpt2 ]; then args+=(-gpt2); fi
		timeout 120 "$bin/transformer" "${args[@]}" > "$OUT/decode-transformer-$BACKEND-$model-$i.txt" 2>&1
		echo "transformer $model $i: exit $?"
		if [ -x "$bin/transformer-base" ]; then
			timeout 120 "$bin/transformer-base" "${args[@]}" > "$OUT/decode-transformer-$BACKEND-$model-base-$i.txt" 2>&1
			echo "transformer-base $model $i: exit $?"
		fi
	done
	if [ ! -x "$bin/transformer-base" ]; then break; fi
done
