package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestQuickDecodeIsIdenticalOnEveryPathAndMatchesTheReference runs the
// example as CI does (-quick, with the profile): the three paths must
// decode the same tokens, every path's logits must be within tolerance of
// the float64 reference at every position (the KV caches start as NaN, so
// a kernel reading past the causal mask fails this), and the report must
// time all three paths and profile every kernel.
func TestQuickDecodeIsIdenticalOnEveryPathAndMatchesTheReference(t *testing.T) {
	gputest.Open(t, wgpu.Options{}) // skips, or fails on CI, where no adapter exists
	if testing.Short() {
		t.Skip("decodes on three paths: a few seconds on a software adapter")
	}
	svgPath := filepath.Join(gputest.TempDir(t), "profile.svg")
	var out bytes.Buffer
	if err := run([]string{"-quick", "-profile-svg", svgPath}, &out); err != nil { // -profile-svg implies -profile
		t.Fatalf("run -quick: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"adapter: ",
		"14 dispatches per token",
		"graph:   14 dispatches, 9 kernels",
		"(identical on every path)",
		"check:   8 of 8 tokens' logits within 1e-04",
		"16 tokens per path, interleaved",
		"pipelined: 8 tokens enqueued back to back",
		"profile: one replayed token at position 7",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the -quick report lacks %q:\n%s", want, got)
		}
	}
	// Every path has a row with a positive time, and every kernel of the
	// token appears in the profile.
	for _, p := range []string{"eager", "replay", "raw"} {
		if !regexp.MustCompile(`(?m)^` + p + ` +[0-9]+\.[0-9]*[1-9]`).MatchString(got) {
			t.Errorf("no timed row for path %s:\n%s", p, got)
		}
	}
	checkColumnsAgree(t, got)
	// The weights' line sets the pipelined replay's time per token beside
	// the read time, a finite multiple of it.
	if !regexp.MustCompile(`a pipelined replayed token [0-9]+\.[0-9]×`).MatchString(got) {
		t.Errorf("the weights' line lacks the pipelined replay's multiple of the read time:\n%s", got)
	}
	if !strings.Contains(got, "(gpu-timestamps)") {
		return // a wall-clock profile has no rows per kernel, and no span
	}
	// With timestamps the token's span is measured, a multiple of the
	// read time; not on OpenGL (llvmpipe's GL under wine has timestamps),
	// where ReplayProfile.Span is 0 and the line says "-".
	spanRe := `the span is [0-9]+\.[0-9]× that`
	if strings.Contains(got, "[gl,") {
		spanRe = `the span is - that`
	}
	if !regexp.MustCompile(spanRe).MatchString(got) {
		t.Errorf("the weights' line lacks the span (%s):\n%s", spanRe, got)
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil || !bytes.HasPrefix(svg, []byte("<svg")) || !strings.Contains(got, "profile-svg: "+svgPath) {
		t.Errorf("-profile-svg must write the chart and say where: %v\n%s", err, got)
	}
	for _, k := range []string{"embed", "qkv", "attn_split", "attn_proj", "mlp_fc_gelu", "mlp_proj", "lm_head", "argmax_partial", "argmax_final"} {
		if !regexp.MustCompile(`(?m)^` + k + ` `).MatchString(got) {
			t.Errorf("the profile has no row for kernel %s:\n%s", k, got)
		}
		if !bytes.Contains(svg, []byte(">"+k+"<")) {
			t.Errorf("the profile chart has no bar for kernel %s", k)
		}
	}
}

// checkColumnsAgree reads the per-token table: each path's tokens/s is
// 1000 / its median ms (the header says median, and a rate from another
// statistic beside it would disagree with it), and its p10 ≤ median ≤ p90.
func checkColumnsAgree(t *testing.T, report string) {
	t.Helper()
	if !strings.Contains(report, "median ms") || !strings.Contains(report, "mean ms") || !strings.Contains(report, "tokens/s: 1000 / median ms") {
		t.Errorf("the table must say which statistic each column is:\n%s", report)
	}
	rows := regexp.MustCompile(`(?m)^(eager|replay|raw) +([0-9.]+) +([0-9.]+)–([0-9.]+) +([0-9.]+) +([0-9.]+) `).FindAllStringSubmatch(report, -1)
	if len(rows) < 3 {
		t.Fatalf("want a per-token row for each of the three paths:\n%s", report)
	}
	for _, r := range rows[:3] {
		var v [5]float64
		for i := range v {
			v[i], _ = strconv.ParseFloat(r[2+i], 64)
		}
		med, p10, p90, rate := v[0], v[1], v[2], v[4]
		if want := 1000 / med; math.Abs(rate-want) > 0.05+want*1e-3*2 {
			t.Errorf("%s: tokens/s %v, but 1000 / median %v ms is %.1f", r[1], rate, med, want)
		}
		if p10 > med || med > p90 {
			t.Errorf("%s: p10 %v ≤ median %v ≤ p90 %v must hold", r[1], p10, med, p90)
		}
	}
}

// TestQuickDecodeOnOpenGL: the kernels compile and agree on OpenGL too,
// where the hand-written path hands the same WGSL to naga's GLSL backend
// without softgraph's front end.
func TestQuickDecodeOnOpenGL(t *testing.T) {
	gputest.Open(t, wgpu.Options{Backend: wgpu.BackendGL})
	if testing.Short() {
		t.Skip("decodes on three paths: a few seconds on a software adapter")
	}
	t.Setenv("SOFTGRAPH_BACKEND", "gl")
	var out bytes.Buffer
	if err := run([]string{"-quick", "-rounds", "1", "-q"}, &out); err != nil {
		t.Fatalf("run -quick on GL: %v\n%s", err, out.String())
	}
	for _, want := range []string{"[gl,", "(identical on every path)", "check:   8 of 8 tokens' logits within"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the -quick report on GL lacks %q:\n%s", want, out.String())
		}
	}
}

// TestQuickF16DecodeIsIdenticalOnEveryPathAndMatchesItsReference: with
// -f16 the matrices are float16 on the GPU and the reference reads the
// same rounded weights, so the three paths must still decode one sequence
// and every path's logits stay within the float32 tolerance of the float64
// reference; the report says the matrices are float16 and reads less.
func TestQuickF16DecodeIsIdenticalOnEveryPathAndMatchesItsReference(t *testing.T) {
	gputest.Open(t, wgpu.Options{})
	if testing.Short() {
		t.Skip("decodes on three paths: a few seconds on a software adapter")
	}
	var out bytes.Buffer
	if err := run([]string{"-quick", "-f16", "-rounds", "1", "-q"}, &out); err != nil {
		t.Fatalf("run -quick -f16: %v\n%s", err, out.String())
	}
	for _, want := range []string{"weights (float16 matrices) read per token", "(identical on every path)", "check:   8 of 8 tokens' logits within 1e-04", "logits bit-identical across paths"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the -quick -f16 report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestShardedEmbeddingTableDecodesTheSameTokens splits the -quick model's
// embedding table into 7 buffers, as a table over the adapter's binding
// limit is (GPT-2's on many adapters): the embed and LM head launches per
// shard must decode what the single table decodes, on every path.
func TestShardedEmbeddingTableDecodesTheSameTokens(t *testing.T) {
	gputest.Open(t, wgpu.Options{})
	if testing.Short() {
		t.Skip("decodes on three paths twice: a few seconds on a software adapter")
	}
	tokens := func(args ...string) string {
		var out bytes.Buffer
		if err := run(append([]string{"-quick", "-rounds", "1"}, args...), &out); err != nil {
			t.Fatalf("run %q: %v\n%s", args, err, out.String())
		}
		m := regexp.MustCompile(`(?m)^tokens: .*$`).FindString(out.String())
		if m == "" || !strings.Contains(out.String(), fmt.Sprintf("in %s shard(s)", map[bool]string{true: "7", false: "1"}[len(args) > 0])) {
			t.Fatalf("run %q: no token line or wrong shard count:\n%s", args, out.String())
		}
		return m
	}
	if d := cmp.Diff(tokens(), tokens("-shard-bytes", "20000")); d != "" {
		t.Fatalf("a sharded embedding table decoded other tokens (-whole +sharded):\n%s", d)
	}
}

// TestReferenceNeverReadsPastThePosition checks the float64 reference's
// causal mask: cache rows after the position, poisoned with NaN, must not
// reach the logits, and the logits at a position must not depend on what
// the cache held there before (the append overwrites it).
func TestReferenceNeverReadsPastThePosition(t *testing.T) {
	c := quickModel
	w := randomWeights(c, 7)
	clean := newReference(c, w)
	poisoned := newReference(c, w)
	for l := range c.Layers {
		for i := range poisoned.kc[l] {
			poisoned.kc[l][i], poisoned.vc[l][i] = math.NaN(), math.NaN()
		}
	}
	tok := 3
	for pos := range 4 {
		want, got := clean.forward(tok, pos), poisoned.forward(tok, pos)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("position %d: logits depend on cache rows the mask excludes (-clean +poisoned):\n%s", pos, d)
		}
		tok = argmax(want)
	}
}

// TestWeightsDependOnTheSeedOnly: the same seed and shape draw the same
// weights (so every run and every path decode the same model), another
// seed others.
func TestWeightsDependOnTheSeedOnly(t *testing.T) {
	a, b, other := randomWeights(quickModel, 1), randomWeights(quickModel, 1), randomWeights(quickModel, 2)
	if d := cmp.Diff(a.layers[1].wfc, b.layers[1].wfc); d != "" {
		t.Fatalf("the same seed drew different weights:\n%s", d)
	}
	if cmp.Equal(a.wte, other.wte) {
		t.Fatal("seeds 1 and 2 drew the same embeddings")
	}
}

// TestPresetsFillOnlyTheFlagsNotGiven: -gpt2 is GPT-2 small's shape, and
// a size given on the command line wins over the preset's.
func TestPresetsFillOnlyTheFlagsNotGiven(t *testing.T) {
	o, err := parse([]string{"-gpt2", "-layers", "2", "-tokens", "5"})
	if err != nil {
		t.Fatal(err)
	}
	want := config{Layers: 2, Width: 768, Heads: 12, Vocab: 50257, Ctx: 1024}
	if d := cmp.Diff(want, o.cfg); d != "" || o.tokens != 5 || o.check != 5 {
		t.Fatalf("-gpt2 -layers 2 -tokens 5 (-want +got): %s; tokens %d, check %d (want 5, 5)", d, o.tokens, o.check)
	}
	o, err = parse([]string{"-gpt2"})
	if err != nil {
		t.Fatal(err)
	}
	if o.cfg != gpt2Model || o.check != 8 {
		t.Fatalf("-gpt2: got %+v checking %d tokens, want %+v checking 8 (the reference is slow at 124M)", o.cfg, o.check, gpt2Model)
	}
}

// TestBadShapesAreRefusedBeforeAnyGPUWork: sizes the kernels cannot run
// are refused by the flag parser or by validate, naming the problem.
func TestBadShapesAreRefusedBeforeAnyGPUWork(t *testing.T) {
	for _, args := range [][]string{
		{"-tokens", "0"},
		{"-quick", "-tokens", "33"}, // past the context
		{"-quick", "-gpt2"},
		{"-prompt", "5000"},
	} {
		if _, err := parse(args); err == nil {
			t.Errorf("parse(%q) accepted", args)
		}
	}
	lim := wgpu.Limits{MaxComputeWorkgroupsPerDimension: 65535, MaxStorageBufferBindingSize: 1 << 27, MaxBufferSize: 1 << 28}
	for _, c := range []config{
		{Layers: 1, Width: 64, Heads: 3, Vocab: 8, Ctx: 8},    // width not divisible by heads
		{Layers: 1, Width: 24, Heads: 4, Vocab: 8, Ctx: 8},    // head width 6, not a multiple of 4
		{Layers: 1, Width: 20, Heads: 5, Vocab: 8, Ctx: 8},    // width not a multiple of 8 (MatVec's unit)
		{Layers: 1, Width: 4096, Heads: 32, Vocab: 8, Ctx: 8}, // an MLP matrix over 128 MiB, and wider than MatVec's norm
		{Layers: 1, Width: 2056, Heads: 2, Vocab: 8, Ctx: 8},  // wider than MatVec's norm prologue takes
	} {
		if err := c.validate(lim); err == nil {
			t.Errorf("validate(%+v) accepted", c)
		}
	}
	for _, c := range []config{quickModel, gpt2Model} {
		if err := c.validate(lim); err != nil {
			t.Errorf("the %+v model must fit WebGPU's default limits: %v", c, err)
		}
	}
}

// TestVocabShardsCoverTheVocabularyUnderTheLimit: GPT-2's 154 MB tables
// under a 128 MiB binding limit become two shards, each under the limit,
// covering every row once, in order.
func TestVocabShardsCoverTheVocabularyUnderTheLimit(t *testing.T) {
	for _, tc := range []struct {
		c        config
		maxBytes uint64
		want     int
	}{{gpt2Model, 1 << 27, 2}, {gpt2Model, 1 << 31, 1}, {quickModel, 20000, 7}, {quickModel, 1, 512}} {
		ss := vocabShards(tc.c, tc.maxBytes)
		next := 0
		for _, s := range ss {
			if s.row0 != next || s.rows < 1 || (uint64(4*s.rows*tc.c.Width) > tc.maxBytes && s.rows > 1) {
				t.Fatalf("vocab %d under %d bytes: shard %+v (want rows from %d, each shard under the limit)", tc.c.Vocab, tc.maxBytes, s, next)
			}
			next += s.rows
		}
		if len(ss) != tc.want || next != tc.c.Vocab {
			t.Errorf("vocab %d under %d bytes: %d shards covering %d rows, want %d covering every row", tc.c.Vocab, tc.maxBytes, len(ss), next, tc.want)
		}
	}
}

// TestDevicesDecodeTheSameTokensEachAtItsOwnRate runs -devices 2 on the
// machine's adapter (two Devices on one adapter where there is one): each
// device must report its own timed line with device 0's tokens, and the
// report must give the alone rate and the aggregate.
func TestDevicesDecodeTheSameTokensEachAtItsOwnRate(t *testing.T) {
	gputest.Open(t, wgpu.Options{})
	if testing.Short() {
		t.Skip("decodes on two devices: a few seconds on a software adapter")
	}
	var out bytes.Buffer
	if err := run([]string{"-quick", "-devices", "2", "-q"}, &out); err != nil {
		t.Fatalf("run -quick -devices 2: %v\n%s", err, out.String())
	}
	got := out.String()
	rows := regexp.MustCompile(`(?m)^device ([0-9]+): [0-9.]+ ms/token, [0-9.]+ tokens/s, (.*)$`).FindAllStringSubmatch(got, -1)
	var devs, verdicts []string
	for _, r := range rows {
		devs, verdicts = append(devs, r[1]), append(verdicts, r[2])
	}
	if d := cmp.Diff([]string{"0", "1"}, devs); d != "" {
		t.Errorf("per-device rows (-want +got):\n%s\n%s", d, got)
	}
	same := "tokens identical to device 0"
	if d := cmp.Diff([]string{same, same}, verdicts); d != "" {
		t.Errorf("per-device verdicts (-want +got):\n%s\n%s", d, got)
	}
	for _, want := range []string{"adapter 0: ", "adapter 1: ", "graph of 14 dispatches captured on each of 2 devices", "alone:    device 0 ", "aggregate: 2 device(s), 32 tokens in "} {
		if !strings.Contains(got, want) {
			t.Errorf("the -devices 2 report lacks %q:\n%s", want, got)
		}
	}
}

// TestDevicesFlagRefusesABadCount: -devices takes a positive count or all.
func TestDevicesFlagRefusesABadCount(t *testing.T) {
	for _, arg := range []string{"0", "-1", "two"} {
		if _, err := parse([]string{"-devices", arg}); err == nil || !strings.Contains(err.Error(), "-devices") {
			t.Errorf("parse -devices %s: err = %v, want an error naming -devices", arg, err)
		}
	}
	for arg, want := range map[string]int{"all": allDevices, "3": 3} {
		o, err := parse([]string{"-devices", arg})
		if err != nil || o.devices != want {
			t.Errorf("parse -devices %s: devices %d, err %v; want %d", arg, o.devices, err, want)
		}
	}
	if o, err := parse(nil); err != nil || o.devices != 1 {
		t.Errorf("parse without -devices: devices %d, err %v; want 1", o.devices, err)
	}
}
