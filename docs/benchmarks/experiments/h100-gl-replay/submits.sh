#!/usr/bin/env bash
# The next run on the short graphs' gap on OpenGL (README.md, "The short
# graphs' gap is in replay's submits"), in one device call: two switches of
# submits-switches.patch A/B beside the default, a profile of each path's
# submits, and traces of replay with and without the second switch.
#
# Build here, from the repository root:
#   go build -o .bin/graphbench ./examples/graphbench
#   git worktree add /tmp/exp HEAD && (cd /tmp/exp && git apply \
#     "$OLDPWD/docs/benchmarks/experiments/h100-gl-replay/submits-switches.patch" && \
#     go build -o "$OLDPWD/.bin/graphbench-exp" ./examples/graphbench)
#   perf with its libraries in .bin/perf (the device has none):
#     mkdir -p .bin/perf/lib && cp /usr/bin/perf .bin/perf/ &&
#     for l in $(ldd /usr/bin/perf | grep -o '/[^ ]*'); do cp -L "$l" .bin/perf/lib/; done
#   tar -cJf .bin/bins.tar.xz -C .bin graphbench graphbench-exp perf && rm -rf .bin/graphbench .bin/graphbench-exp .bin/perf
# Run there (device tool, carry [".gl", ".bin"]), from the repository root:
#   bash docs/benchmarks/experiments/h100-gl-replay/submits.sh
# The switches, in the experiment build only:
#   SOFTGRAPH_EXP_NO_WORKDONE=1  sg_submit registers no work-done callback
#                                (completion is then seen when a poll finds
#                                the queue empty)
#   SOFTGRAPH_EXP_RAMP_AFTER=1   Sync plans the next run's ramps after its
#                                wait instead of before it, so the ramp
#                                worker's encoding does not overlap the polls
#   SOFTGRAPH_EXP_BLOCKING=1     a wait on OpenGL for submitted work is one
#                                blocking poll under the GL lock (as the
#                                hand-written loop waits) before the polling
#                                loop; unbounded, so not for main as it is
# and on main: SOFTGRAPH_GL_POLL_GAP_US=200 (the spinning wait's poll gap).
# The patch also carries the switches waits.sh ran later: SOFTGRAPH_EXP_GLTHREAD
# (submits, polls and encoder frees on one locked OS thread),
# SOFTGRAPH_EXP_LOCKSUB (the submitter's goroutine locked to its OS thread) and
# SOFTGRAPH_EXP_PREDICT (a wait polls only after three quarters of the
# device's recent waits' average).
# Writes $OUT/submits.tar.xz (tracecalls.py reads the traces).
set -u
OUT=${OUT:?set OUT to the folder whose files come back}
device_bins="graphbench graphbench-exp"
# shellcheck source=/dev/null
. "$(dirname "$0")/../../device-setup.sh"
o=$OUT/submits
mkdir -p "$o"
pack() { tar -cJf "$OUT/submits.tar.xz" -C "$OUT" submits; }
ab() { # name, then environment settings
	local n=$1
	shift
	env SOFTGRAPH_BACKEND=gl "$@" timeout 60 "$bin/graphbench-exp" -configs life64_g2_x200,tiny_g1_x1000 \
		-rounds 100 -budget 2s -wide -paths replay,raw_chunked,gpu > "$o/ab-$n.txt" 2>&1
}
perf=("$bin/perf/lib/ld-linux-x86-64.so.2" --library-path "$bin/perf/lib" "$bin/perf/perf")
profile() { # path: a DWARF call-graph profile of that path alone
	local n=dwarf-$1
	SOFTGRAPH_BACKEND=gl timeout 60 "${perf[@]}" record -F 1999 --call-graph dwarf,16384 -o "$o/$n.data" -- \
		"$bin/graphbench" -configs tiny_g1_x1000 -rounds 600 -budget 2s -paths "$1" > "$o/run-$n.txt" 2>&1
	"${perf[@]}" report -i "$o/$n.data" --children -g none --sort sym --stdio 2>/dev/null | grep -v '^$' | head -300 > "$o/children-$n.txt"
	"${perf[@]}" report -i "$o/$n.data" --no-children --percent-limit 1.5 --sort sym -g caller,0.5,callee,function,percent --stdio 2>/dev/null |
		grep -v '^$' | head -1500 > "$o/tree-$n.txt"
	rm -f "$o/$n.data"
}
for i in 1 2; do
	ab "base-$i"
	ab "nowd-$i" SOFTGRAPH_EXP_NO_WORKDONE=1
	ab "rampafter-$i" SOFTGRAPH_EXP_RAMP_AFTER=1
	ab "both-$i" SOFTGRAPH_EXP_NO_WORKDONE=1 SOFTGRAPH_EXP_RAMP_AFTER=1
	ab "blocking-$i" SOFTGRAPH_EXP_BLOCKING=1
	ab "gap200-$i" SOFTGRAPH_GL_POLL_GAP_US=200
	pack
done
profile replay
pack
profile raw_chunked
pack
for v in 0 1; do
	SOFTGRAPH_EXP_RAMP_AFTER=$v SOFTGRAPH_BACKEND=gl timeout 60 "$bin/graphbench-exp" -configs life64_g2_x200 -rounds 60 -budget 3s \
		-paths replay -trace "$o/trace-rampafter$v.out" > "$o/trace-rampafter$v.txt" 2>&1
done
pack
