package main

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/softgraph/softgraph/examples/internal/clock"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// allDevices is -devices all: one device per adapter wgpu.OpenAll opens.
const allDevices = 0

// onDevice is one device of -devices: its stream, the weights uploaded
// from the shared seed, and the replay path captured on it.
type onDevice struct {
	dev    *wgpu.Device
	s      *recorder.Stream
	w      *gpuWeights
	replay *replayPath
}

// close releases what newOnDevice made, then the stream and the device.
func (d *onDevice) close(c config) error {
	if d.replay != nil {
		d.replay.release()
	}
	if d.w != nil {
		d.w.release(c)
	}
	var err error
	if d.s != nil {
		err = d.s.Close()
	}
	d.dev.Close()
	return err
}

// newOnDevice uploads host's weights on dev and captures the replay path's
// token there; d.close undoes it, whether it failed half way or not.
func newOnDevice(dev *wgpu.Device, o options, host *tensors[[]float32]) (d *onDevice, err error) {
	d = &onDevice{dev: dev}
	if err := o.cfg.validate(dev.Info().Limits); err != nil {
		return d, err
	}
	if d.s, err = recorder.New(dev); err != nil {
		return d, err
	}
	shardBytes := maxBinding(dev.Info().Limits)
	if o.shardBytes > 0 {
		shardBytes = min(shardBytes, o.shardBytes)
	}
	if d.w, err = upload(d.s, o.cfg, host, shardBytes); err != nil {
		return d, err
	}
	ks, err := compileKernels(dev, o.cfg, d.w.shards)
	if err != nil {
		return d, err
	}
	d.replay, err = newReplayPath(d.s, o.cfg, ks, d.w)
	return d, err
}

// decodeRounds decodes o.rounds times o.tokens tokens from the prompt on
// the replay path, reading every token back as it comes (as the timed
// rounds of one device do), and returns the tokens of every round, one
// after the other, and the time from the first reset to the last read.
func decodeRounds(p *replayPath, o options) ([]uint32, time.Duration, error) {
	seq := make([]uint32, 0, o.rounds*o.tokens)
	t0 := clock.Now()
	for range o.rounds {
		if err := p.reset(uint32(o.prompt)); err != nil {
			return nil, 0, fmt.Errorf("reset: %w", err)
		}
		for pos := range o.tokens {
			if err := p.step(pos); err != nil {
				return nil, 0, fmt.Errorf("token %d: %w", pos, err)
			}
			tok, err := p.token()
			if err != nil {
				return nil, 0, fmt.Errorf("token %d: %w", pos, err)
			}
			seq = append(seq, tok)
		}
	}
	return seq, clock.Since(t0), nil
}

// multiDecode is -devices: independent decodes of the same prompt, one per
// device, each on its own stream with its own copy of the weights and its
// own capture of the token (every device captures; no graph file moves
// between them). After an untimed decode on every device (the warmup),
// device 0 decodes alone, then every device at once, each in a goroutine
// released together; the report gives each device's tokens/s, the
// aggregate, and the scaling over device 0 alone. Every device must decode
// device 0's tokens.
func multiDecode(o options, stdout io.Writer) (err error) {
	progress := func(format string, a ...any) {
		if !o.quiet {
			fmt.Fprintf(stdout, "· "+format+"\n", a...)
		}
	}
	var devs []*wgpu.Device
	if o.devices == allDevices {
		devs, err = wgpu.OpenAll(wgpu.Options{})
	} else {
		devs, err = wgpu.OpenN(wgpu.Options{}, o.devices)
	}
	if err != nil {
		return err
	}
	c := o.cfg
	progress("drawing %.1fM random weights (seed %d)", float64(c.params())/1e6, o.seed)
	host := randomWeights(c, o.seed)
	ds := make([]*onDevice, 0, len(devs))
	defer func() {
		for i, d := range ds {
			if cerr := d.close(c); cerr != nil && err == nil {
				err = fmt.Errorf("device %d: close stream: %w", i, cerr)
			}
		}
		for _, dev := range devs[len(ds):] {
			dev.Close()
		}
	}()
	for i, dev := range devs {
		fmt.Fprintf(stdout, "adapter %d: %s\n", i, dev.Info())
		progress("device %d: uploading %.1f MB of weights, capturing one token", i, float64(4*c.params())/1e6)
		d, err := newOnDevice(dev, o, host)
		ds = append(ds, d)
		if err != nil {
			return fmt.Errorf("device %d: %w", i, err)
		}
	}
	st := ds[0].replay.g.Stats()
	fmt.Fprintf(stdout, "model:   %v; seed %d; graph of %d dispatches captured on each of %d devices\n", c, o.seed, st.Dispatches, len(ds))

	// The warmup: one untimed decode per device, which also gives the
	// sequence every later decode must repeat.
	var want []uint32
	for i, d := range ds {
		progress("device %d: warmup decode", i)
		seq, _, err := decodeRounds(d.replay, options{tokens: o.tokens, rounds: 1, prompt: o.prompt})
		if err != nil {
			return fmt.Errorf("device %d: %w", i, err)
		}
		if i == 0 {
			want = seq
		} else if err := sameTokens(seq, want); err != nil {
			return fmt.Errorf("device %d: warmup: %w", i, err)
		}
	}
	fmt.Fprintf(stdout, "tokens:  %s (device 0)\n", head(want, 16))
	for range o.rounds - 1 {
		want = append(want, want[:o.tokens]...)
	}

	n := o.tokens * o.rounds
	progress("device 0 alone: %d rounds of %d tokens", o.rounds, o.tokens)
	seq, alone, err := decodeRounds(ds[0].replay, o)
	if err != nil {
		return fmt.Errorf("device 0 alone: %w", err)
	}
	if err := sameTokens(seq, want); err != nil {
		return fmt.Errorf("device 0 alone: %w", err)
	}
	aloneRate := float64(n) / alone.Seconds()
	fmt.Fprintf(stdout, "\nreplay, %d tokens per device read back one by one\n", n)
	fmt.Fprintf(stdout, "alone:    device 0 %.3f ms/token, %.1f tokens/s\n", ms(alone)/float64(n), aloneRate)

	progress("all %d devices at once", len(ds))
	seqs := make([][]uint32, len(ds))
	times := make([]time.Duration, len(ds))
	errs := make([]error, len(ds))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, d := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			seqs[i], times[i], errs[i] = decodeRounds(d.replay, o)
		}()
	}
	t0 := clock.Now()
	close(start)
	wg.Wait()
	wall := clock.Since(t0)
	var failed error
	for i := range ds {
		if errs[i] == nil {
			errs[i] = sameTokens(seqs[i], want)
		}
		verdict := "tokens identical to device 0"
		if errs[i] != nil {
			verdict = "FAILED: " + errs[i].Error()
			if failed == nil {
				failed = fmt.Errorf("device %d: %w", i, errs[i])
			}
			fmt.Fprintf(stdout, "device %d: %s\n", i, verdict)
			continue
		}
		fmt.Fprintf(stdout, "device %d: %.3f ms/token, %.1f tokens/s, %s\n", i, ms(times[i])/float64(n), float64(n)/times[i].Seconds(), verdict)
	}
	if failed != nil {
		return failed
	}
	agg := float64(n*len(ds)) / wall.Seconds()
	fmt.Fprintf(stdout, "aggregate: %d device(s), %d tokens in %v, %.1f tokens/s: %.2f× device 0 alone (%d× would be linear)\n",
		len(ds), n*len(ds), wall.Round(time.Microsecond), agg, agg/aloneRate, len(ds))
	return nil
}

// sameTokens says where got first differs from want.
func sameTokens(got, want []uint32) error {
	if slices.Equal(got, want) {
		return nil
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Errorf("decoded token %d at step %d, device 0 decoded %d", got[i], i, want[i])
		}
	}
	return fmt.Errorf("decoded %d tokens, device 0 decoded %d", len(got), len(want))
}
