package wgpu

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestWaitsOnHardwareGLLeaveAGapBetweenPolls: a spinning wait polls a
// hardware OpenGL adapter at most every glPollGap (back to back, the polls
// slowed the GPU's own work there: see glPollGap), software GL and every
// other backend back to back, and SOFTGRAPH_GL_POLL_GAP_US overrides it on
// GL only. A nap of the spin phase lasts at least the gap.
func TestWaitsOnHardwareGLLeaveAGapBetweenPolls(t *testing.T) {
	gl := AdapterInfo{Backend: BackendGL, Type: AdapterDiscrete}
	softGL := AdapterInfo{Backend: BackendGL, Type: AdapterCPU}
	vk := AdapterInfo{Backend: BackendVulkan, Type: AdapterDiscrete}
	cases := []struct {
		env  string
		a    AdapterInfo
		want time.Duration
	}{
		{"", gl, glPollGap},
		{"", softGL, 0},
		{"", vk, 0},
		{"200", gl, 200 * time.Microsecond},
		{"200", softGL, 200 * time.Microsecond},
		{"0", gl, 0},
		{"200", vk, 0},
		{"fast", gl, glPollGap},
	}
	type row struct {
		Env, Adapter string
		Gap          time.Duration
	}
	var want, got []row
	for _, c := range cases {
		t.Setenv("SOFTGRAPH_GL_POLL_GAP_US", c.env)
		want = append(want, row{c.env, c.a.Backend.String() + "/" + c.a.Type.String(), c.want})
		got = append(got, row{c.env, c.a.Backend.String() + "/" + c.a.Type.String(), pollGapFor(c.a)})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("poll gaps (-want +got):\n%s", diff)
	}

	const gap = 2 * time.Millisecond
	b := backoff{start: time.Now(), spin: time.Hour, gap: gap}
	for range 3 {
		start := time.Now()
		b.nap()
		if took := time.Since(start); took < gap {
			t.Fatalf("a nap of the spin phase with a %v gap returned after %v", gap, took)
		}
	}
}
