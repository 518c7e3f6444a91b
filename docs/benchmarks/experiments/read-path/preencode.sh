#!/usr/bin/env bash
# Round-trip latency with and without pre-encoding (SOFTGRAPH_PREENCODE 1, 0),
# interleaved: the patch's round-trip benchmarks and examples/transformer
# (main's read path, A). Build as join.sh says.
set -u
mkdir -p $OUT/q
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/q/gpu.txt 2>&1
tar -xJf .bin/exp.tar.xz -C .bin
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; [ -f $nvidia_icd ] && export VK_DRIVER_FILES=$nvidia_icd
export SOFTGRAPH_REQUIRE_GPU=1
for round in 1 2; do
  for pe in 1 0; do
    (cd tests && SOFTGRAPH_PREENCODE=$pe timeout 40 ../.bin/tests-exp.test -test.run XXX -test.bench 'ExpRoundTrip|ExpReplayThenRead/A' -test.count 2 -test.benchtime 0.4s > $OUT/q/rt-pe$pe-$round.txt 2>&1)
    SOFTGRAPH_PREENCODE=$pe timeout 60 .bin/tf-exp > $OUT/q/small-pe$pe-$round.txt 2>&1
    SOFTGRAPH_PREENCODE=$pe timeout 90 .bin/tf-exp -gpt2 > $OUT/q/gpt2-pe$pe-$round.txt 2>&1
  done
  tar -cJf $OUT/q.tar.xz -C $OUT q
done
