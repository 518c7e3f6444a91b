#!/usr/bin/env bash
# main's flush that submits the batches the submitter has not started
# (internal/engine submitQueued) against the build before it, interleaved
# on one machine: BenchmarkRoundTrip on Vulkan and GL (GL is the control:
# the change is off there), then examples/transformer (small default and
# -gpt2) on Vulkan. Not run yet (README.md). Build here, from the
# repository root (b4e1b2c is the build before; the benchmark is copied in):
#   git worktree add /tmp/base b4e1b2c && cp recorder/bench_test.go /tmp/base/recorder/
#   (cd /tmp/base && go test -c -o "$OLDPWD/.bin/recorder-base.test" ./recorder && go build -o "$OLDPWD/.bin/transformer-base" ./examples/transformer)
#   go test -c -o .bin/recorder.test ./recorder && go build -o .bin/transformer ./examples/transformer
#   tar -cJf .bin/rt.tar.xz -C .bin recorder-base.test recorder.test transformer transformer-base
# Run there (device tool, carry [".gl", ".bin"]), from the repository root:
#   bash docs/benchmarks/experiments/read-path/flush-submits-ab.sh
# SHORT=1: one round, no -gpt2 (about 90 s). Writes $OUT/r/ and $OUT/r.tar.xz.
set -u
mkdir -p "$OUT/r"
tar -xJf .bin/rt.tar.xz -C .bin
device_bins=""
# shellcheck source=/dev/null
. docs/benchmarks/device-setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/r/gpu.txt" 2>&1
export SOFTGRAPH_REQUIRE_GPU=1
rounds=2
if [ "${SHORT:-0}" = 1 ]; then rounds=1; fi
for round in $(seq "$rounds"); do
	for v in base new; do
		t=$bin/recorder.test tf=$bin/transformer
		if [ "$v" = base ]; then t=$bin/recorder-base.test tf=$bin/transformer-base; fi
		for b in vulkan gl; do
			(cd recorder && SOFTGRAPH_BACKEND=$b timeout 40 "$t" -test.run XXX -test.bench RoundTrip -test.benchtime 0.25s) > "$OUT/r/rt-$b-$v-$round.txt" 2>&1
		done
		SOFTGRAPH_BACKEND=vulkan timeout 40 "$tf" > "$OUT/r/small-$v-$round.txt" 2>&1
	done
	tar -cJf "$OUT/r.tar.xz" -C "$OUT" r
done
if [ "${SHORT:-0}" != 1 ]; then
	for v in base new; do
		tf=$bin/transformer
		if [ "$v" = base ]; then tf=$bin/transformer-base; fi
		SOFTGRAPH_BACKEND=vulkan timeout 70 "$tf" -gpt2 > "$OUT/r/gpt2-$v.txt" 2>&1
		tar -cJf "$OUT/r.tar.xz" -C "$OUT" r
	done
fi
