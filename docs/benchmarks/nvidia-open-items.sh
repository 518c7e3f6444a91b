#!/usr/bin/env bash
# What is still to be measured on NVIDIA, in one device call, by part:
# graphbench (replay against eager and the hand-written loops on OpenGL,
# side by side with Vulkan and with an earlier build's), tests (the
# native-memory tests at their long sizes on Vulkan and GL, and the GL
# deadline tests) and machines (the native-setup tests on both backends).
#
# Build here (the device machine has no Go), from the repository root, the
# binaries of the parts to run:
#   go build -o .bin/graphbench ./examples/graphbench      # graphbench
#   go test -c -o .bin/tests.test ./tests                  # tests, machines
#   go test -c -o .bin/recorder.test ./recorder            # tests
#   go test -c -o .bin/wgpu.test ./wgpu                    # machines
#   tar -cJf .bin/bins.tar.xz -C .bin graphbench tests.test recorder.test wgpu.test && rm .bin/graphbench .bin/*.test
# Run there (device tool, carry [".gl", ".bin"]), from the repository root:
#   bash docs/benchmarks/nvidia-open-items.sh
# Writes $OUT/open-items.tar.xz. Settings, by environment: CONFIGS
# (graphbench's rows; default the GPU-bound, Life and short-graph rows),
# ROUNDS (9), BUDGET (graphbench -budget, 4s), STEP_TIMEOUT (seconds per
# step, 120), GAP0 (1: GL runs without the poll gap beside the default's),
# PREENCODE0 (1: GL runs without pre-encoding or ramps beside them),
# BACKGROUND0 (1: GL runs with the recorder paths submitting on the
# caller's goroutine, graphbench -background off, beside them), GL_FIRST
# (a number: GL runs with that first submission chunk, -first, beside them),
# TRACE (rows to trace on GL; default life512_g2_x200,tiny_x1000), PARTS
# (graphbench, tests, machines; default "graphbench tests"; run in that
# order; machines needs .bin/wgpu.test), RUNS (GL
# graphbench runs, 2). With .bin/graphbench-base (an
# earlier build's graphbench) each graphbench run has that build's beside it.
set -u
OUT=${OUT:?set OUT to the folder whose files come back}
CONFIGS=${CONFIGS:-1m_x500,1m_x2000,256k_x1000,64k_x1000,life512_g2_x200,life512_g200_x200,life64_g2_x200,tiny_x1000,tiny_g1_x1000,tiny_g8_x1000}
ROUNDS=${ROUNDS:-9}
BUDGET=${BUDGET:-4s}
STEP_TIMEOUT=${STEP_TIMEOUT:-120}
TRACE=${TRACE-life512_g2_x200,tiny_x1000}
PARTS=${PARTS:-graphbench tests}
RUNS=${RUNS:-2}
device_bins=""
case " $PARTS " in *" graphbench "*) device_bins+=" graphbench" ;; esac
case " $PARTS " in *" tests "*) device_bins+=" tests.test recorder.test" ;; esac
case " $PARTS " in *" machines "*) device_bins+=" wgpu.test tests.test" ;; esac
# shellcheck source=/dev/null
. "$(dirname "$0")/device-setup.sh"
out=$OUT/open-items
mkdir -p "$out"
step() { # name, then the command
	local name=$1
	shift
	timeout "$STEP_TIMEOUT" "$@" > "$out/$name.txt" 2>&1
	echo "exit $?" >> "$out/$name.txt"
	echo "$name: $(tail -1 "$out/$name.txt")"
}
gb=("$bin/graphbench" -configs "$CONFIGS" -rounds "$ROUNDS" -budget "$BUDGET" -wide)

# graphbench, GL RUNS times (with .bin/graphbench-base, each beside the
# earlier build's run; with GAP0=1, beside a run without the poll gap),
# then Vulkan (beside the earlier build's), then a trace of each TRACE row
# on GL (graphbench -trace; docs/benchmarks/experiments/h100-gl-replay/
# tracecalls.py reads it).
graphbench_part() {
	for i in $(seq "$RUNS"); do
		SOFTGRAPH_BACKEND=gl step "graphbench-gl-default-$i" "${gb[@]}" -json "$out/graphbench-gl-default-$i.json"
		if [ -x "$bin/graphbench-base" ]; then
			SOFTGRAPH_BACKEND=gl step "graphbench-gl-base-$i" "$bin/graphbench-base" "${gb[@]:1}" -json "$out/graphbench-gl-base-$i.json"
		fi
		if [ "${GAP0:-0}" = 1 ]; then
			SOFTGRAPH_BACKEND=gl SOFTGRAPH_GL_POLL_GAP_US=0 step "graphbench-gl-gap0-$i" "${gb[@]}"
		fi
		if [ "${PREENCODE0:-0}" = 1 ]; then
			SOFTGRAPH_BACKEND=gl SOFTGRAPH_PREENCODE=0 step "graphbench-gl-preencode0-$i" "${gb[@]}"
		fi
		if [ "${BACKGROUND0:-0}" = 1 ]; then
			SOFTGRAPH_BACKEND=gl step "graphbench-gl-background0-$i" "${gb[@]}" -background off
		fi
		if [ -n "${GL_FIRST:-}" ]; then
			SOFTGRAPH_BACKEND=gl step "graphbench-gl-first$GL_FIRST-$i" "${gb[@]}" -first "$GL_FIRST"
		fi
	done
	SOFTGRAPH_BACKEND=vulkan step graphbench-vulkan "${gb[@]}" -json "$out/graphbench-vulkan.json"
	if [ -x "$bin/graphbench-base" ]; then
		SOFTGRAPH_BACKEND=vulkan step graphbench-vulkan-base "$bin/graphbench-base" "${gb[@]:1}" -json "$out/graphbench-vulkan-base.json"
	fi
	for row in ${TRACE//,/ }; do
		SOFTGRAPH_BACKEND=gl step "trace-gl-$row" "$bin/graphbench" -configs "$row" -rounds 3 -budget 2s -trace "$out/trace-gl-$row.out"
	done
}

tests_part() {
	# The tests run from their packages' folders, where their relative paths point.
	export SOFTGRAPH_REQUIRE_GPU=1
	cd "$root/tests"
	for backend in vulkan gl; do
		SOFTGRAPH_BACKEND=$backend SOFTGRAPH_LONG=1 step "memory-$backend" "$bin/tests.test" -test.run 'LeaveNoNativeMemoryBehind' -test.v
	done
	SOFTGRAPH_BACKEND=gl step deadlines-gl "$bin/tests.test" -test.run 'Deadline' -test.v
	cd "$root/recorder"
	SOFTGRAPH_BACKEND=gl SOFTGRAPH_LONG=1 step read-deadline-gl "$bin/recorder.test" -test.run 'TestReadDeadlineHoldsBehindAnotherStreamsLongWork' -test.v -test.count 3
	cd "$root"
}

# The machine tests of the native-setup work, on both backends: GL devices
# closed in any order while others work, Open on a broken install (a
# subprocess each), the Vulkan memory limits and Empty(MaxBufferSize),
# Close behind a dispatch longer than the GL driver runs one.
machines_part() {
	export SOFTGRAPH_REQUIRE_GPU=1
	for backend in vulkan gl; do
		cd "$root/wgpu"
		SOFTGRAPH_BACKEND=$backend step "machines-wgpu-$backend" "$bin/wgpu.test" -test.v \
			-test.run 'TestGLDevicesCloseInAnyOrderWhileOthersWork|TestOpenOnABrokenDriverInstallReturnsAnAdapterErrorInsteadOfAborting|TestVulkanMemoryIsReadForEveryVulkanAdapter'
		cd "$root/tests"
		SOFTGRAPH_BACKEND=$backend SOFTGRAPH_LONG=1 step "machines-tests-$backend" "$bin/tests.test" -test.v \
			-test.run 'TestEmptyOfMaxBufferSizeIsMadeOrRunsOutOfMemory|TestCloseBehindADispatchLongerThanTheGLDriverRunsOne'
	done
	cd "$root"
}

for part in $PARTS; do
	"${part}_part"
done
tar -cJf "$OUT/open-items.tar.xz" -C "$OUT" open-items
