package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// memoryGuard runs in a fresh process (gputest.InFreshProcess): it ends the
// process with a message when its resident set grows by more than
// maxGrowth over what it was on entry, or when it is still running after
// limit (a hang), so neither an unbounded allocation nor a deadlock takes
// the suite or the machine down with it.
func memoryGuard(t *testing.T, maxGrowth uint64, limit time.Duration) (peak func() uint64) {
	t.Helper()
	base := rss()
	var top atomic.Uint64
	top.Store(base)
	stop := make(chan struct{})
	go func() {
		deadline := time.After(limit)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-deadline:
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				fmt.Fprintf(os.Stderr, "memoryGuard: %s still running after %v: it hangs\n%s\n", t.Name(), limit, buf[:n])
				os.Exit(4)
			case <-tick.C:
				r := rss()
				if r > top.Load() {
					top.Store(r)
				}
				if base != 0 && r > base+maxGrowth {
					fmt.Fprintf(os.Stderr, "memoryGuard: %s: resident set grew from %d MiB to %d MiB (more than %d MiB): stopped before it takes the machine\n", t.Name(), base>>20, r>>20, maxGrowth>>20)
					os.Exit(3)
				}
			}
		}
	}()
	t.Cleanup(func() { close(stop) })
	return func() uint64 {
		r := rss()
		if r > top.Load() {
			top.Store(r)
		}
		return top.Load() - base
	}
}

// guardedChildEnv names the case a re-executed test binary runs
// (guardedSubprocess).
const guardedChildEnv = "SOFTGRAPH_TESTS_GUARDED_CASE"

// guardedSubprocess runs body for case name of the top-level test t in a
// process of its own (this test binary, re-executed for t alone), killed
// after limit:
// a native abort, a stack overflow, an OOM guard or a deadlock in body is
// reported as this case's failure with the child's last lines, and the
// other cases still run. In the child it runs body only for its own case.
func guardedSubprocess(t *testing.T, name string, limit time.Duration, body func(t *testing.T)) {
	t.Helper()
	if c := os.Getenv(guardedChildEnv); c != "" {
		if c == name {
			body(t)
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), guardedChildEnv+"="+name)
	out, err := cmd.CombinedOutput()
	var kept []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "XDG_RUNTIME_DIR") {
			continue
		}
		kept = append(kept, l)
	}
	if len(kept) > 40 {
		kept = append(kept[:20], append([]string{"..."}, kept[len(kept)-20:]...)...)
	}
	log := strings.Join(kept, "\n")
	switch {
	case ctx.Err() != nil:
		t.Errorf("%s: still running after %v (a hang), killed:\n%s", name, limit, log)
	case err != nil:
		t.Errorf("%s: the process died: %v\n%s", name, err, log)
	case strings.Contains(log, "--- SKIP: "+t.Name()):
		t.Logf("%s: skipped in its process", name)
	case !strings.Contains(log, "--- PASS: "+t.Name()):
		t.Errorf("%s: did not pass in its process:\n%s", name, log)
	default:
		t.Logf("%s: passed in a process of its own:\n%s", name, log)
	}
}

// forgery is one forged graph file: built from affineFile(3, 5) by edit.
// wantErr: LoadGraph must refuse it (with ErrGraphFile, naming msg);
// otherwise it must load and two replays must compute x·9 + 20 on 0..63.
type forgery struct {
	name    string
	edit    func(f *fileSpec)
	wantErr bool
	want    func(i uint32) uint32 // what two replays compute from i (nil: i·9 + 20)
}

func forgeries() []forgery {
	u32 := func(v uint32) *uint32 { return &v }
	over := "override K: u32 = 1u;\n" + affineWGSL
	return []forgery{
		{name: "params of 0 bytes", edit: func(f *fileSpec) { f.params[0] = []byte{} }, wantErr: true},
		{name: "params of 3 bytes", edit: func(f *fileSpec) { f.params[0] = []byte{3, 0, 0} }, wantErr: true},
		// Params are zero-padded to the uniform granule, as Launch's are:
		// the missing word reads 0.
		{name: "params of 4 bytes for an 8-byte struct", edit: func(f *fileSpec) { f.params[0] = u32Bytes(3) }, want: func(i uint32) uint32 { return i * 9 }},
		{name: "params over maxUniformBufferBindingSize", edit: func(f *fileSpec) { f.params[0] = make([]byte, 65536+4) }, wantErr: true},
		{name: "entry that does not exist", edit: func(f *fileSpec) { f.kernels[0].entry = "nope" }, wantErr: true},
		{name: "empty source", edit: func(f *fileSpec) { f.kernels[0].source = "" }, wantErr: true},
		{name: "constant for no override", edit: func(f *fileSpec) { f.kernels[0].constants = []fileConst{{"nope", 1}} }, wantErr: true},
		{name: "NaN for a u32 override", edit: func(f *fileSpec) {
			f.kernels[0].source, f.kernels[0].constants = over, []fileConst{{"K", math.NaN()}}
		}, wantErr: true},
		{name: "one constant twice", edit: func(f *fileSpec) {
			f.kernels[0].source, f.kernels[0].constants = over, []fileConst{{"K", 7}, {"K", 1}}
		}},
		{name: "zero workgroups", edit: func(f *fileSpec) { f.nodes[0].x = 0 }, wantErr: true},
		{name: "workgroups over the limit", edit: func(f *fileSpec) { f.nodes[0].y = 65536 }, wantErr: true},
		{name: "MaxUint32 workgroups", edit: func(f *fileSpec) { f.nodes[0].z = math.MaxUint32 }, wantErr: true},
		{name: "a missing argument", edit: func(f *fileSpec) { f.nodes[0].args = f.nodes[0].args[:1] }, wantErr: true},
		{name: "an extra argument", edit: func(f *fileSpec) { f.nodes[0].args = append(f.nodes[0].args, [2]uint32{0, 0}) }, wantErr: true},
		{name: "no arguments", edit: func(f *fileSpec) { f.nodes[0].args = nil }, wantErr: true},
		{name: "a buffer for the uniform", edit: func(f *fileSpec) { f.nodes[0].args[1] = [2]uint32{0, 0} }, wantErr: true},
		{name: "params for the storage buffer", edit: func(f *fileSpec) { f.nodes[0].args[0] = [2]uint32{1, 0} }, wantErr: true},
		{name: "a texture for the storage buffer", edit: func(f *fileSpec) {
			f.textures = []fileTex{{w: 8, h: 8, d: 1, dim: 1, format: "r32uint"}}
			f.nodes[0].args[0] = [2]uint32{2, 0}
		}, wantErr: true},
		{name: "a sampler for the uniform", edit: func(f *fileSpec) {
			f.samplers = []uint8{0xff}
			f.nodes[0].args[1] = [2]uint32{3, 0}
		}, wantErr: true},
		{name: "argument of kind 4", edit: func(f *fileSpec) { f.nodes[0].args[1] = [2]uint32{4, 0} }, wantErr: true},
		{name: "argument count MaxUint32", edit: func(f *fileSpec) { f.nodes[0].nargsOverride = u32(math.MaxUint32) }, wantErr: true},
		{name: "argument index MaxUint32", edit: func(f *fileSpec) { f.nodes[0].args[0] = [2]uint32{0, math.MaxUint32} }, wantErr: true},
		{name: "kernel index 1 of 1", edit: func(f *fileSpec) { f.nodes[0].kernel = 1 }, wantErr: true},
		{name: "indirect from the bound buffer", edit: func(f *fileSpec) { f.nodes[0].indirect = true }, wantErr: true},
		{name: "indirect offset MaxUint64 aligned", edit: func(f *fileSpec) {
			f.buffers = append(f.buffers, fileBuf{size: 16, contents: u32Bytes(1, 1, 1, 0)})
			f.nodes[0].indirect, f.nodes[0].buf, f.nodes[0].offset = true, 1, math.MaxUint64-3
		}, wantErr: true},
		{name: "indirect offset leaving 8 bytes", edit: func(f *fileSpec) {
			f.buffers = append(f.buffers, fileBuf{size: 16, contents: u32Bytes(1, 1, 1, 0)})
			f.nodes[0].indirect, f.nodes[0].buf, f.nodes[0].offset = true, 1, 8
		}, wantErr: true},
		{name: "indirect offset 2", edit: func(f *fileSpec) {
			f.buffers = append(f.buffers, fileBuf{size: 16, contents: u32Bytes(1, 1, 1, 0)})
			f.nodes[0].indirect, f.nodes[0].buf, f.nodes[0].offset = true, 1, 2
		}, wantErr: true},
		{name: "indirect counts of (1,1,1) at offset 4", edit: func(f *fileSpec) {
			f.buffers = append(f.buffers, fileBuf{size: 16, contents: u32Bytes(0, 1, 1, 1)})
			f.nodes[0].indirect, f.nodes[0].buf, f.nodes[0].offset = true, 1, 4
		}},
		{name: "copy of a buffer onto itself", edit: func(f *fileSpec) {
			f.nodes = append(f.nodes, fileNode{kind: 1, src: 0, dst: 0, srcOff: 0, dstOff: 128, size: 64})
		}, wantErr: true},
		{name: "copy at offset MaxUint64 aligned", edit: func(f *fileSpec) {
			f.buffers = append(f.buffers, fileBuf{size: 256})
			f.nodes = append(f.nodes, fileNode{kind: 1, src: 0, dst: 1, srcOff: math.MaxUint64 - 3, size: 8})
		}, wantErr: true},
		{name: "copy of MaxUint64 aligned bytes", edit: func(f *fileSpec) {
			f.buffers = append(f.buffers, fileBuf{size: 256})
			f.nodes = append(f.nodes, fileNode{kind: 1, src: 0, dst: 1, dstOff: 8, size: math.MaxUint64 - 3})
		}, wantErr: true},
		{name: "copy of 0 bytes", edit: func(f *fileSpec) {
			f.buffers = append(f.buffers, fileBuf{size: 256})
			f.nodes = append(f.nodes, fileNode{kind: 1, src: 0, dst: 1})
		}, wantErr: true},
		{name: "clear at offset MaxUint64 aligned", edit: func(f *fileSpec) {
			f.nodes = append(f.nodes, fileNode{kind: 2, dst: 0, dstOff: math.MaxUint64 - 3, size: 8})
		}, wantErr: true},
		{name: "clear of MaxUint64 aligned bytes", edit: func(f *fileSpec) {
			f.nodes = append(f.nodes, fileNode{kind: 2, dst: 0, dstOff: 4, size: math.MaxUint64 - 3})
		}, wantErr: true},
		{name: "clear of 2 bytes", edit: func(f *fileSpec) {
			f.nodes = append(f.nodes, fileNode{kind: 2, dst: 0, size: 2})
		}, wantErr: true},
		{name: "clear of another buffer", edit: func(f *fileSpec) {
			f.buffers = append(f.buffers, fileBuf{size: 256})
			f.nodes = append(f.nodes, fileNode{kind: 2, dst: 1, dstOff: 4, size: 8})
		}},
		{name: "node kind 3", edit: func(f *fileSpec) { f.nodes[0].kind = 3 }, wantErr: true},
		{name: "node in region 1 of 0", edit: func(f *fileSpec) { f.nodes[0].region = 1 }, wantErr: true},
		{name: "buffer size 2", edit: func(f *fileSpec) { f.buffers[0].size, f.buffers[0].contents = 2, nil }, wantErr: true},
		{name: "buffer size over maxBufferSize", edit: func(f *fileSpec) { f.buffers[0].size, f.buffers[0].contents = 1<<40, nil }, wantErr: true},
		{name: "buffer role 5", edit: func(f *fileSpec) { f.buffers[0].role = 5 }, wantErr: true},
		// Role 4 (a Var) is version 3's: a version-2 file with it is refused.
		{name: "buffer role 4 in a version-2 file", edit: func(f *fileSpec) { f.version, f.buffers[0].role = 2, 4 }, wantErr: true},
		{name: "enable buffer in a version-1 file", edit: func(f *fileSpec) {
			f.version = 1
			f.buffers = append(f.buffers, fileBuf{size: 4, role: 3})
		}, wantErr: true},
		{name: "gate table without contents", edit: func(f *fileSpec) { f.buffers = append(f.buffers, fileBuf{size: 4, role: 2}) }, wantErr: true},
		{name: "label not UTF-8", edit: func(f *fileSpec) { f.buffers[0].label = "\xff\xfe" }, wantErr: true},
		{name: "a gate buffer and no region", edit: func(f *fileSpec) { f.buffers = append(f.buffers, fileBuf{size: 16, role: 1}) }, wantErr: true},
		{name: "a region without gate or enable buffer", edit: func(f *fileSpec) {
			f.regions = []fileRegion{{kind: 1, maxIter: 1, cond: 0}}
		}, wantErr: true},
		{name: "region kind 3", edit: func(f *fileSpec) {
			f.buffers = append(f.buffers, fileBuf{size: 16, role: 3})
			f.regions = []fileRegion{{kind: 3, maxIter: 1}}
		}, wantErr: true},
		{name: "region that is its own parent", edit: func(f *fileSpec) {
			f.buffers = append(f.buffers, fileBuf{size: 16, role: 3})
			f.regions = []fileRegion{{kind: 1, parent: 1, maxIter: 1}}
		}, wantErr: true},
		{name: "region of MaxUint32 iterations", edit: func(f *fileSpec) {
			f.buffers = append(f.buffers, fileBuf{size: 16, role: 3})
			f.regions = []fileRegion{{kind: 2, maxIter: math.MaxUint32}}
		}, wantErr: true},
		{name: "texture of format \"\"", edit: func(f *fileSpec) { f.textures = []fileTex{{w: 4, h: 4, d: 1, dim: 1}} }, wantErr: true},
		{name: "texture of an unknown format", edit: func(f *fileSpec) { f.textures = []fileTex{{w: 4, h: 4, d: 1, dim: 1, format: "rgba8unorm\x00"}} }, wantErr: true},
		{name: "texture of width 0", edit: func(f *fileSpec) { f.textures = []fileTex{{w: 0, h: 4, d: 1, dim: 1, format: "r32float"}} }, wantErr: true},
		// Depth 0 is a 2D texture, as in TextureDesc.
		{name: "texture of depth 0", edit: func(f *fileSpec) { f.textures = []fileTex{{w: 4, h: 4, d: 0, dim: 2, format: "r32float"}} }},
		{name: "texture over maxTextureDimension2D", edit: func(f *fileSpec) { f.textures = []fileTex{{w: 1 << 20, h: 1, d: 1, dim: 1, format: "r32float"}} }, wantErr: true},
		{name: "texture of MaxUint32 cubed", edit: func(f *fileSpec) {
			f.textures = []fileTex{{w: math.MaxUint32, h: math.MaxUint32, d: math.MaxUint32, dim: 2, format: "rgba32float"}}
		}, wantErr: true},
		{name: "texture contents one byte short", edit: func(f *fileSpec) {
			f.textures = []fileTex{{w: 4, h: 4, d: 1, dim: 1, format: "r32float", contents: make([]byte, 63)}}
		}, wantErr: true},
	}
}

// TestForgedGraphFilesAreRefusedOrReplayExactly: each field of a
// well-formed file forged to an odd value (zero, MaxUint32, MaxUint64,
// misaligned, of the wrong kind, pointing nowhere), the checksum made right
// so the forgery reaches the decoder. LoadGraph must refuse it with a
// *GraphFileError wrapping ErrGraphFile, or load a graph whose replays
// compute what its nodes say; String, WriteDOT, Save and ProfileReplay of
// what loads must work. Each case runs in a process of its own, so a native
// abort is one case's failure.
func TestForgedGraphFilesAreRefusedOrReplayExactly(t *testing.T) {
	skipIfShort(t)
	for _, c := range forgeries() {
		want := make([]uint32, rampElems)
		for i := range want {
			if c.want != nil {
				want[i] = c.want(uint32(i))
			} else {
				want[i] = uint32(i)*9 + 20
			}
		}
		run := func(t *testing.T) {
			_, s := gputest.OpenStream(t)
			if os.Getenv(guardedChildEnv) != "" {
				memoryGuard(t, 1<<30, 50*time.Second)
			}
			f := affineFile(3, 5)
			c.edit(f)
			lg, err := s.LoadGraph(bytes.NewReader(f.encode()))
			if err != nil {
				var ge *recorder.GraphFileError
				if !errors.Is(err, recorder.ErrGraphFile) || !errors.As(err, &ge) {
					t.Fatalf("%s: a refusal must be a *GraphFileError wrapping ErrGraphFile: %v", c.name, err)
				}
				if !c.wantErr {
					t.Fatalf("%s: refused a file that should load: %v", c.name, err)
				}
				t.Logf("%s: refused: %v", c.name, err)
			} else {
				defer lg.Release()
				if c.wantErr {
					t.Errorf("%s: loaded a file that should be refused: %s", c.name, lg)
				}
				exerciseLoaded(t, c.name, s, lg, want)
			}
			// The stream still computes after the refusal.
			lg2, err := s.LoadGraph(bytes.NewReader(affineFile(3, 5).encode()))
			if err != nil {
				t.Fatalf("%s: the well-formed file after it: %v", c.name, err)
			}
			defer lg2.Release()
			exerciseLoaded(t, c.name+", then the well-formed file", s, lg2, want920())
		}
		// A process per case costs a second under the race detector and
		// more under wine: there (and with -short) the cases, none of
		// which crashed natively, share this process.
		if shortRampRuns() || raceEnabled {
			t.Run(c.name, run)
		} else {
			guardedSubprocess(t, c.name, 60*time.Second, run)
		}
	}
}

// exerciseLoaded replays lg twice and wants want in its first buffer, then
// wants String, WriteDOT, Save and ProfileReplay to work on it.
func exerciseLoaded(t *testing.T, what string, s *recorder.Stream, lg *recorder.Graph, want []uint32) {
	t.Helper()
	for range 2 {
		if err := lg.Replay(); err != nil {
			t.Fatalf("%s: Replay: %v", what, err)
		}
	}
	bufs := lg.Buffers()
	if len(bufs) == 0 {
		t.Fatalf("%s: the loaded graph lists no buffers", what)
	}
	if diff := cmp.Diff(want, gputest.ReadU32(t, s, bufs[0])); diff != "" {
		t.Errorf("%s: two replays (-want +got):\n%s", what, diff)
	}
	_ = lg.String()
	if err := lg.WriteDOT(io.Discard); err != nil {
		t.Errorf("%s: WriteDOT: %v", what, err)
	}
	var file bytes.Buffer
	if _, err := lg.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		t.Errorf("%s: Save: %v", what, err)
	} else if lg2, err := s.LoadGraph(&file); err != nil {
		t.Errorf("%s: the loaded graph saved again does not load: %v", what, err)
	} else {
		lg2.Release()
	}
	if _, err := s.ProfileReplay(lg); err != nil {
		t.Errorf("%s: ProfileReplay: %v", what, err)
	}
	for _, b := range bufs {
		b.Release()
	}
}

// want920 is what two replays of affineFile(3, 5) leave: i·9 + 20.
func want920() []uint32 {
	want := make([]uint32, rampElems)
	for i := range want {
		want[i] = uint32(i)*9 + 20
	}
	return want
}

// TestATinyFileDeclaringHugeBuffersCommitsNoGigabytes: a 300-byte
// file declaring sixteen buffers of maxBufferSize (2 GiB on lavapipe) and
// no command. LoadGraph once checked each size against maxBufferSize
// alone, allocated every buffer and cleared each: the resident set grew by
// gigabytes (the guard stopped it at 3 GiB; unguarded it went on to 32
// GiB, past this machine's memory). The stream's load limit refuses the
// file before anything is made.
func TestATinyFileDeclaringHugeBuffersCommitsNoGigabytes(t *testing.T) {
	guardedSubprocess(t, "buffers", 120*time.Second, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		max := d.Info().Limits.MaxBufferSize &^ 3
		if max < 1<<30 {
			t.Skipf("maxBufferSize %d: sixteen of them are affordable", max)
		}
		peak := memoryGuard(t, 3<<30, 100*time.Second)
		f := &fileSpec{}
		for range 16 {
			f.buffers = append(f.buffers, fileBuf{size: max})
		}
		file := f.encode()
		lg, err := s.LoadGraph(bytes.NewReader(file))
		if err == nil {
			lg.Release()
			t.Fatalf("a %d-byte file declaring 16 × %d zeroed bytes must be refused by the default load limit", len(file), max)
		}
		if !errors.Is(err, recorder.ErrGraphFile) || !strings.Contains(err.Error(), "WithLoadLimit") {
			t.Fatalf("the refusal must wrap ErrGraphFile and name WithLoadLimit: %v", err)
		}
		if grew := peak(); grew > 1<<30 {
			t.Fatalf("a %d-byte file made the resident set grow by %d MiB (LoadGraph: %v)", len(file), grew>>20, err)
		}
	})
}

// tex3DWGSL loads one texel of a 3D texture.
const tex3DWGSL = `
@group(0) @binding(0) var t: texture_3d<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(1)
fn main() {
	y[0] = textureLoad(t, vec3<i32>(0, 0, 0), 0).x;
}
`

// TestATinyFileDeclaringHugeTexturesCommitsNoGigabytes: a 600-byte
// file declaring eight 3D rgba32float textures of 1024×1024×128 (512 MiB
// each, under every per-texture limit) and one load from each. LoadGraph
// once made them all and the first Replay made wgpu zero them: the
// resident set grew past the 3 GiB guard (64 such textures are 32 GiB from
// a 5 KB file). The load limit refuses it before any texture is used.
func TestATinyFileDeclaringHugeTexturesCommitsNoGigabytes(t *testing.T) {
	guardedSubprocess(t, "textures", 120*time.Second, func(t *testing.T) {
		_, s := gputest.OpenStream(t)
		peak := memoryGuard(t, 3<<30, 100*time.Second)
		f := &fileSpec{
			kernels: []fileKernel{{source: tex3DWGSL, entry: "main"}},
			buffers: []fileBuf{{size: 4}},
		}
		for i := range uint32(8) {
			f.textures = append(f.textures, fileTex{w: 1024, h: 1024, d: 128, dim: 2, format: "rgba32float"})
			f.nodes = append(f.nodes, fileNode{kind: 0, x: 1, y: 1, z: 1, args: [][2]uint32{{2, i}, {0, 0}}})
		}
		file := f.encode()
		lg, err := s.LoadGraph(bytes.NewReader(file))
		if err == nil {
			lg.Release()
			t.Fatalf("a %d-byte file declaring 8 zeroed textures of 512 MiB must be refused by the default load limit", len(file))
		}
		if !errors.Is(err, recorder.ErrGraphFile) || !strings.Contains(err.Error(), "WithLoadLimit") {
			t.Fatalf("the refusal must wrap ErrGraphFile and name WithLoadLimit: %v", err)
		}
		if grew := peak(); grew > 1<<30 {
			t.Fatalf("a %d-byte file made the resident set grow by %d MiB (LoadGraph: %v)", len(file), grew>>20, err)
		}
	})
}
