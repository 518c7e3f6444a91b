package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// writeSample saves a small chain graph with its inputs, and the expected
// result after one replay, into dir.
func writeSample(t *testing.T, dir string) (input, expected string) {
	t.Helper()
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Ramp(64, 0))
	b := gputest.Empty(t, s, a.Size())
	g, err := s.Capture(func() error { return gputest.Chain(s, k, a, b, 10, 64) })
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	save := func(name string) string {
		var buf bytes.Buffer
		if _, err := g.Save(&buf, recorder.SaveOptions{Contents: true}); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	input = save("in.sgraph")
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	return input, save("expected.sgraph")
}

// TestReplayToolTimesAndChecksAFile: the tool loads a file written by
// another stream, times its replays into JSON (-quick: 5 rounds), and
// -check finds one replay equal to the expected file, and a different file
// not equal.
func TestReplayToolTimesAndChecksAFile(t *testing.T) {
	dir := gputest.TempDir(t)
	in, expected := writeSample(t, dir)
	var out bytes.Buffer
	js := filepath.Join(dir, "r.json")
	if err := run([]string{"-quick", "-json", js, in}, &out, io.Discard); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var r Result
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Dispatches != 10 || r.Rounds != 5 || !(r.MedianUS >= 0 && r.MinUS <= r.MedianUS && r.MedianUS <= r.MaxUS) || !strings.Contains(r.Graph, "main ×10") {
		t.Fatalf("the JSON must describe 5 rounds of a 10-dispatch graph: %+v", r)
	}
	out.Reset()
	if err := run([]string{"-check", expected, in}, &out, io.Discard); err != nil {
		t.Fatalf("one replay of the input must match the expected file: %v\n%s", err, out.String())
	}
	if err := run([]string{"-check", in, in}, &out, io.Discard); err == nil || !strings.Contains(err.Error(), "differs") {
		t.Fatalf("the unreplayed input is not the result of a replay; -check must say where it differs, got %v", err)
	}
}

// TestUsageSaysWhereGraphFilesComeFrom: run without a file prints a usage
// that names the APIs writing graph files and the example that writes some.
func TestUsageSaysWhereGraphFilesComeFrom(t *testing.T) {
	var stderr bytes.Buffer
	if err := run(nil, io.Discard, &stderr); err == nil {
		t.Fatal("run with no graph file must fail")
	}
	for _, want := range []string{"usage: replay", "Graph.Save", "Graph.WriteTo", "examples/graphbench", "-save graphs", "-quick"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the usage lacks %q:\n%s", want, stderr.String())
		}
	}
}
