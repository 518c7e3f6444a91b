#!/usr/bin/env bash
# Not run yet (no device time was left): what the submitter's hand-off costs a round
# trip, SOFTGRAPH_EXP_BACKGROUND 1 (the default) against 0 (batches submitted on the
# caller's goroutine, WithBackgroundSubmit(false)), interleaved: the round-trip
# benchmarks on Vulkan and GL and examples/transformer. Build as join.sh says.
set -u
mkdir -p $OUT/s
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/s/gpu.txt 2>&1
tar -xJf .bin/exp.tar.xz -C .bin
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; [ -f $nvidia_icd ] && export VK_DRIVER_FILES=$nvidia_icd
export SOFTGRAPH_REQUIRE_GPU=1
for round in 1 2; do
  for bg in 1 0; do
    for b in vulkan gl; do
      (cd tests && SOFTGRAPH_BACKEND=$b SOFTGRAPH_EXP_BACKGROUND=$bg timeout 40 ../.bin/tests-exp.test -test.run XXX -test.bench 'ExpRoundTrip|ExpReplayThenRead/A' -test.count 2 -test.benchtime 0.3s > $OUT/s/rt-$b-bg$bg-$round.txt 2>&1)
    done
    SOFTGRAPH_EXP_BACKGROUND=$bg timeout 60 .bin/tf-exp > $OUT/s/small-bg$bg-$round.txt 2>&1
    SOFTGRAPH_EXP_BACKGROUND=$bg timeout 90 .bin/tf-exp -gpt2 > $OUT/s/gpt2-bg$bg-$round.txt 2>&1
  done
  tar -cJf $OUT/s.tar.xz -C $OUT s
done
