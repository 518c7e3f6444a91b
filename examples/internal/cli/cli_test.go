package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatusFollowsTheFlagPackagesConventions: -h and -help end with 0, a
// refused flag or a stray argument with 2 (after the usage), a failure of
// the program with 1.
func TestStatusFollowsTheFlagPackagesConventions(t *testing.T) {
	got := map[string]int{}
	for name, args := range map[string][]string{
		"-h": {"-h"}, "-help": {"-help"}, "unknown flag": {"-nope"}, "bad value": {"-n", "x"},
		"stray argument": {"file"}, "fine": {"-n", "3"},
	} {
		fs := flag.NewFlagSet("prog", flag.ContinueOnError)
		var out bytes.Buffer
		fs.SetOutput(&out)
		fs.Int("n", 1, "a number")
		err := Parse(fs, args, false)
		got[name] = Status(err)
		if (got[name] != 0 || name == "-h") && name != "fine" && !strings.Contains(out.String(), "Usage of prog") {
			t.Errorf("%s: the usage must be printed, got %q", name, out.String())
		}
	}
	got["failure"] = Status(errors.New("the device is gone"))
	want := map[string]int{"-h": 0, "-help": 0, "unknown flag": 2, "bad value": 2, "stray argument": 2, "fine": 0, "failure": 1}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("exit statuses (-want +got):\n%s", d)
	}
}
