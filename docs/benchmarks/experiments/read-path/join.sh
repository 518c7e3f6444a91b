#!/usr/bin/env bash
# The read-path experiment (README.md beside it): examples/transformer, built
# with read-switches.patch applied to 15f51b8, with SOFTGRAPH_EXP_READ A
# (main's read), B (one hand-off wait) and C (the copy finished on its own
# and joined to the replay's submission), interleaved, and the patch's
# BenchmarkExpReplayThenRead on Vulkan and GL. Build here, from the root of
# the patched tree:
#   go build -ldflags='-s -w' -o .bin/tf-exp ./examples/transformer
#   go test -c -ldflags='-s -w' -o .bin/tests-exp.test ./tests
#   tar -cJf .bin/exp.tar.xz -C .bin tf-exp tests-exp.test
# Run there (device tool, carry [".gl", ".bin"]) from the repository root.
set -u
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/r/gpu.txt 2>&1
# shellcheck source=/dev/null
. "$(dirname "$0")/setup.sh"
start=$(date +%s)
for b in vulkan gl; do
  (cd tests && SOFTGRAPH_BACKEND=$b timeout 70 ../.bin/tests-exp.test -test.run XXX -test.bench ExpReplayThenRead -test.count 3 -test.benchtime 0.5s > $OUT/r/bench-$b.txt 2>&1)
done
for round in 1 2; do
  for v in A B C; do
    SOFTGRAPH_EXP_READ=$v timeout 60 .bin/tf-exp > $OUT/r/small-$v-$round.txt 2>&1
  done
done
tar -cJf $OUT/r.tar.xz -C $OUT r
for round in 1 2 3; do
  for v in A B C; do
    [ $(( $(date +%s) - start )) -gt 440 ] && break 2
    SOFTGRAPH_EXP_READ=$v timeout 90 .bin/tf-exp -gpt2 > $OUT/r/gpt2-$v-$round.txt 2>&1
  done
  tar -cJf $OUT/r.tar.xz -C $OUT r
done
tar -cJf $OUT/r.tar.xz -C $OUT r
