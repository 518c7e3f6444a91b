#!/usr/bin/env bash
# The decode kernels on NVIDIA as one device call: BenchmarkDecodeKernels
# with every MatVecOp.ThreadsPerRow (-decode.sweep), then the GPT-2-sized
# transformer's replay with its per-kernel profile, on Vulkan.
#
# Build here (the device machine has no Go), from the repository root:
#   go test -c -o .bin/shaders.test ./shaders
#   go build -o .bin/transformer ./examples/transformer
#   tar -cJf .bin/bins.tar.xz -C .bin shaders.test transformer && rm .bin/shaders.test .bin/transformer
# Run there (device tool, carry [".gl", ".bin"]), from the repository root:
#   bash docs/benchmarks/decode-h200/sweep.sh
# Writes $OUT/decode-*.txt. Settings, by environment: BW (the GPU's memory
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
(cd "$root/shaders" && timeout 200 "$bin/shaders.test" -test.run '^$' -test.bench BenchmarkDecodeKernels \
	-test.benchtime 20x -decode.sweep -decode.bw "$BW") > "$OUT/decode-sweep-$BACKEND.txt" 2>&1
echo "sweep: exit $?"
timeout 240 "$bin/transformer" -gpt2 -profile -bw "$BW" -check 2 > "$OUT/decode-transformer-$BACKEND-gpt2.txt" 2>&1
echo "transformer: exit $?"
