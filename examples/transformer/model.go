package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/wgpu"
)

// lnEps is GPT-2's layer norm epsilon.
const lnEps = 1e-5

// config is the model's shape.
type config struct {
	Layers, Width, Heads, Vocab, Ctx int
	// F16 stores the matrices (the four projections of every layer and
	// the LM head) as float16, read by shaders.MatVecF16 with float32
	// accumulation; the embeddings, norms and biases stay float32.
	F16 bool
}

func (c config) headDim() int { return c.Width / c.Heads }

// params counts the model's weights: the token and position tables, every
// layer's, the final norm and the LM head.
func (c config) params() int {
	d := c.Width
	perLayer := 3*d*d + 3*d + d*d + d + 4*d*d + 4*d + 4*d*d + d + 4*d
	return c.Layers*perLayer + 2*c.Vocab*d + c.Ctx*d + 2*d
}

// weightBytesPerToken is what one token reads of the weights: every
// layer's matrices and biases, the norms and the LM head; of the token and
// position tables, one row each.
func (c config) weightBytesPerToken() int64 {
	all := 4 * int64(c.params()-(c.Vocab+c.Ctx)*c.Width+2*c.Width)
	if c.F16 {
		all -= 2 * c.matrixParams() // two of each matrix weight's four bytes
	}
	return all
}

// matrixParams counts the weights of the matrices (what -f16 halves): the
// four projections of every layer and the LM head.
func (c config) matrixParams() int64 {
	d := int64(c.Width)
	return int64(c.Layers)*12*d*d + int64(c.Vocab)*d
}

// matrixBytes is what a matrix of n weights takes on the GPU.
func (c config) matrixBytes(n int64) int64 {
	if c.F16 {
		return 2 * n
	}
	return 4 * n
}

// dispatches is how many dispatches a token is with s vocabulary shards
// (forward's count).
func (c config) dispatches(shards int) int { return 5*c.Layers + 2*shards + 2 }

func (c config) String() string {
	prec := "float32 weights"
	if c.F16 {
		prec = "weights (float16 matrices)"
	}
	return fmt.Sprintf("%d layers, width %d, %d heads of %d, vocab %d, context %d (%.1fM params, %.1f MB of %s read per token)",
		c.Layers, c.Width, c.Heads, c.headDim(), c.Vocab, c.Ctx, float64(c.params())/1e6, float64(c.weightBytesPerToken())/1e6, prec)
}

// validate checks the shape against what the kernels assume and against
// the device's limits, so a model too big for the adapter is refused by
// name instead of by a validation error deep in the first launch.
func (c config) validate(lim wgpu.Limits) error {
	switch {
	case c.Layers < 1, c.Width < 8, c.Heads < 1, c.Vocab < 1, c.Ctx < 1:
		return fmt.Errorf("model %+v: every size must be positive (width at least 8)", c)
	case c.Width%8 != 0 || c.Width > shaders.MatVecMaxNormCols:
		return fmt.Errorf("model %+v: the width must be a multiple of 8 (shaders.MatVec reads rows in units of 8) and at most %d (its layer norm prologue's)", c, shaders.MatVecMaxNormCols)
	case c.Width%c.Heads != 0 || c.headDim()%4 != 0:
		return fmt.Errorf("model %+v: the head width (width/heads) must be a whole multiple of 4", c)
	case uint32(c.Heads) > lim.MaxComputeWorkgroupsPerDimension || uint32((c.Ctx+shaders.AttnChunk-1)/shaders.AttnChunk) > lim.MaxComputeWorkgroupsPerDimension:
		return fmt.Errorf("model %+v: %d heads or a context of %d exceed maxComputeWorkgroupsPerDimension %d", c, c.Heads, c.Ctx, lim.MaxComputeWorkgroupsPerDimension)
	}
	// The embedding table is split into shards that fit (vocabShards);
	// every other buffer must fit whole.
	largest := 4 * uint64(max(4*c.Width*c.Width, c.Ctx*c.Width, c.Heads*c.Ctx, c.Width))
	if largest > maxBinding(lim) {
		return fmt.Errorf("model %+v: its largest buffer is %d bytes, over this adapter's maxStorageBufferBindingSize %d or maxBufferSize %d",
			c, largest, lim.MaxStorageBufferBindingSize, lim.MaxBufferSize)
	}
	return nil
}

// maxBinding is the largest buffer a kernel may bind as storage.
func maxBinding(lim wgpu.Limits) uint64 {
	return min(lim.MaxStorageBufferBindingSize, lim.MaxBufferSize)
}

// vocabShard is a run of the vocabulary's rows, [row0, row0+rows), of the
// token embeddings and of the LM head, each in a buffer.
type vocabShard struct {
	row0, rows int
	wte, head  *recorder.Buffer
}

// vocabShards splits the vocabulary into as few equal runs of rows as keep
// each table's shard under maxBytes: GPT-2's tables (154 MB each) are over
// the 128 MiB many adapters bind (WebGPU's default
// maxStorageBufferBindingSize). The embed and LM head kernels then run
// once per shard.
func vocabShards(c config, maxBytes uint64) []vocabShard {
	perShard := max(1, int(maxBytes/(4*uint64(c.Width))))
	n := (c.Vocab + perShard - 1) / perShard
	rows := (c.Vocab + n - 1) / n
	var ss []vocabShard
	for r := 0; r < c.Vocab; r += rows {
		ss = append(ss, vocabShard{row0: r, rows: min(rows, c.Vocab-r)})
	}
	return ss
}

// layerTensors is one layer's parameters. Matrices are output-major: row r
// holds the K weights of output r (GPT-2's Conv1D stores them input-major;
// the transpose is what lets a workgroup read its row contiguously).
type layerTensors[T any] struct {
	ln1G, ln1B T
	wqkv, bqkv T // 3d×d, 3d
	wo, bo     T // d×d, d
	ln2G, ln2B T
	wfc, bfc   T // 4d×d, 4d
	wpr, bpr   T // d×4d, d
}

// tensors is the whole model's parameters: float32 slices on the host (the
// reference reads them) or buffers on the GPU.
type tensors[T any] struct {
	wte, wpe   T // vocab×d, ctx×d
	head       T // vocab×d: the LM head
	layers     []layerTensors[T]
	lnfG, lnfB T
}

// each lists every tensor with its shape, in a fixed order.
func (t *tensors[T]) each(c config, f func(p *T, n int, init initKind)) {
	d := c.Width
	f(&t.wte, c.Vocab*d, initMatrix(1))
	f(&t.wpe, c.Ctx*d, initMatrix(4))
	for i := range t.layers {
		l := &t.layers[i]
		f(&l.ln1G, d, initGain)
		f(&l.ln1B, d, initBias)
		f(&l.wqkv, 3*d*d, initMatrix(d))
		f(&l.bqkv, 3*d, initBias)
		f(&l.wo, d*d, initMatrix(d))
		f(&l.bo, d, initBias)
		f(&l.ln2G, d, initGain)
		f(&l.ln2B, d, initBias)
		f(&l.wfc, 4*d*d, initMatrix(d))
		f(&l.bfc, 4*d, initBias)
		f(&l.wpr, d*4*d, initMatrix(4*d))
		f(&l.bpr, d, initBias)
	}
	f(&t.lnfG, d, initGain)
	f(&t.lnfB, d, initBias)
	f(&t.head, c.Vocab*d, initMatrix(d))
}

// isMatrix reports whether p is one of t's matrices (what -f16 stores as
// float16): a layer's projection or the LM head.
func (t *tensors[T]) isMatrix(p *T) bool {
	if p == &t.head {
		return true
	}
	for i := range t.layers {
		l := &t.layers[i]
		if p == &l.wqkv || p == &l.wo || p == &l.wfc || p == &l.wpr {
			return true
		}
	}
	return false
}

// initKind is how a tensor is drawn. Every matrix is at unit gain, and so
// are the token embeddings (the position embeddings at half): each layer
// then moves the residual stream as much as the input token does, and the
// greedy sequence depends on the token, the position and the attention
// over the history. (GPT-2's initialisation, 0.02 everywhere, keeps the
// residual stream the input token's embedding, and the untrained model
// repeats its prompt.)
type initKind int

const (
	initGain initKind = -1 // 1 + N(0, 0.1²): layer norm gains (not all ones, so a wrong gain shows)
	initBias initKind = -2 // N(0, 0.02²): biases (not zero, so a dropped bias shows)
)

// initMatrix is N(0, 1/fanIn): a matrix of fanIn inputs at unit gain.
func initMatrix(fanIn int) initKind { return initKind(fanIn) }

// randomWeights draws every tensor from its own PCG stream seeded by
// (seed, tensor index), so the weights depend on the seed and the shape
// only, and the tensors can be drawn in parallel. With c.F16 the matrices
// are rounded to float16 here, so the reference computes with the weights
// the GPU reads.
func randomWeights(c config, seed uint64) *tensors[[]float32] {
	w := &tensors[[]float32]{layers: make([]layerTensors[[]float32], c.Layers)}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	idx := uint64(0)
	w.each(c, func(p *[]float32, n int, init initKind) {
		idx++
		wg.Add(1)
		sem <- struct{}{}
		half := c.F16 && w.isMatrix(p)
		go func(p *[]float32, stream uint64) {
			defer func() { <-sem; wg.Done() }()
			rng := rand.New(rand.NewPCG(seed, stream))
			v := make([]float32, n)
			for i := range v {
				g := rng.NormFloat64()
				switch init {
				case initBias:
					v[i] = float32(0.02 * g)
				case initGain:
					v[i] = float32(1 + 0.1*g)
				default:
					v[i] = float32(g / math.Sqrt(float64(init)))
				}
				if half {
					v[i] = shaders.F16Round(v[i])
				}
			}
			*p = v
		}(p, idx)
	})
	wg.Wait()
	return w
}

// gpuWeights is the model on the GPU: every tensor in a buffer of its own,
// the two vocabulary-sized tables (tensors.wte and tensors.head, left nil)
// in shards.
type gpuWeights struct {
	tensors[*recorder.Buffer]
	shards []vocabShard
}

// upload puts every tensor in buffers of s, the embedding table in shards
// of at most shardBytes. On failure it releases what it made.
func upload(s *recorder.Stream, c config, host *tensors[[]float32], shardBytes uint64) (*gpuWeights, error) {
	g := &gpuWeights{tensors: tensors[*recorder.Buffer]{layers: make([]layerTensors[*recorder.Buffer], c.Layers)}, shards: vocabShards(c, shardBytes)}
	var hs [][]float32
	host.each(c, func(p *[]float32, _ int, _ initKind) { hs = append(hs, *p) })
	i := 0
	var err error
	up := func(v []float32, half bool) (*recorder.Buffer, error) {
		if half {
			return recorder.UploadSlice(s, shaders.F16Pack(v))
		}
		return recorder.UploadSlice(s, v)
	}
	g.each(c, func(p **recorder.Buffer, _ int, _ initKind) {
		if err == nil && p != &g.wte && p != &g.head {
			if *p, err = up(hs[i], c.F16 && g.isMatrix(p)); err != nil {
				err = fmt.Errorf("upload weights: %w", err)
			}
		}
		i++
	})
	d := c.Width
	for j := range g.shards {
		sh := &g.shards[j]
		if err == nil {
			if sh.wte, err = recorder.UploadSlice(s, host.wte[sh.row0*d:(sh.row0+sh.rows)*d]); err == nil {
				sh.head, err = up(host.head[sh.row0*d:(sh.row0+sh.rows)*d], c.F16)
			}
			if err != nil {
				err = fmt.Errorf("upload the vocabulary tables: %w", err)
			}
		}
	}
	if err != nil {
		g.release(c)
		return nil, err
	}
	return g, nil
}

// release drops every weight buffer (nil-safe, for an upload that failed
// half way).
func (g *gpuWeights) release(c config) {
	g.each(c, func(p **recorder.Buffer, _ int, _ initKind) { (*p).Release() })
	for _, sh := range g.shards {
		sh.wte.Release()
		sh.head.Release()
	}
}

// state is one path's working memory: activations, the KV cache, the
// token buffer argmax writes and embed reads, and the per-token Step
// uniform. Each path has its own, so each computes its whole sequence
// itself; the weights are shared.
type state struct {
	x      *recorder.Buffer   // residual stream, d
	qkv    *recorder.Buffer   // the token's query, key and value, 3d
	parts  *recorder.Buffer   // attention partials per head and chunk (shaders.AttnOp.AttnPartialWords)
	u      *recorder.Buffer   // MLP hidden, 4d
	logits *recorder.Buffer   // vocab
	amax   *recorder.Buffer   // argmax partials, 2 u32 per shaders.ArgmaxSpan logits
	tok    *recorder.Buffer   // u32: the token the next step embeds
	step   *recorder.Buffer   // Step: pos, len, 0, 0 (the hand-written path's uniform)
	kc, vc []*recorder.Buffer // per layer, ctx×d
}

// attnOp is the model's attention shape for the shipped kernels.
func (c config) attnOp() shaders.AttnOp {
	return shaders.AttnOp{Heads: uint32(c.Heads), HeadDim: uint32(c.headDim()), Ctx: uint32(c.Ctx), Scale: float32(1 / math.Sqrt(float64(c.headDim())))}
}

func newState(s *recorder.Stream, c config) (*state, error) {
	st := &state{kc: make([]*recorder.Buffer, c.Layers), vc: make([]*recorder.Buffer, c.Layers)}
	d := uint64(c.Width)
	sizes := []struct {
		p *(*recorder.Buffer)
		n uint64
	}{
		{&st.x, d}, {&st.qkv, 3 * d},
		{&st.parts, c.attnOp().AttnPartialWords()}, {&st.u, 4 * d}, {&st.logits, uint64(c.Vocab)},
		{&st.amax, 2 * uint64(shaders.ArgmaxGroups(uint32(c.Vocab)))}, {&st.tok, 4}, {&st.step, 4},
	}
	for l := range c.Layers {
		sizes = append(sizes, struct {
			p *(*recorder.Buffer)
			n uint64
		}{&st.kc[l], uint64(c.Ctx) * d}, struct {
			p *(*recorder.Buffer)
			n uint64
		}{&st.vc[l], uint64(c.Ctx) * d})
	}
	for _, b := range sizes {
		var err error
		if *b.p, err = s.Alloc(4 * b.n); err != nil {
			st.release()
			return nil, fmt.Errorf("allocate state: %w", err)
		}
	}
	// The KV cache and the attention partials start as NaN: a kernel that
	// read a cache row past the token's position (a broken causal mask) or
	// a partial of a chunk past the attention length would turn the logits
	// into NaN and fail the reference check on the first sequence.
	nan := make([]float32, c.Ctx*c.Width)
	for i := range nan {
		nan[i] = float32(math.NaN())
	}
	if n := int(c.attnOp().AttnPartialWords()); n > len(nan) {
		nan = slices.Grow(nan, n-len(nan))[:n]
		for i := range nan {
			nan[i] = float32(math.NaN())
		}
	}
	for _, b := range append([]*recorder.Buffer{st.parts}, append(st.kc, st.vc...)...) {
		if err := recorder.WriteSlice(s, b, 0, nan[:b.Size()/4]); err != nil {
			st.release()
			return nil, fmt.Errorf("poison the KV cache: %w", err)
		}
	}
	return st, nil
}

func (st *state) release() {
	for _, b := range append([]*recorder.Buffer{st.x, st.qkv, st.parts, st.u, st.logits, st.amax, st.tok, st.step}, append(st.kc, st.vc...)...) {
		b.Release() // nil-safe
	}
}

// launch is one dispatch of a token's forward pass.
type launch struct {
	k      *kernel
	groups [3]uint32
	args   []recorder.Arg
	// step is the index in args of the Step uniform, -1 for kernels that
	// read none. The eager path puts the token's values there by value.
	step int
	// weightBytes is what the dispatch reads of the weights, and
	// kvBytesPerPos what it reads of the KV cache per attended position
	// (for the profile's bandwidth column).
	weightBytes, kvBytesPerPos int64
}

// The projections' ops: each kernel is compiled for its own
// (MatVecShader.For) and launched with its params.
func (c config) qkvOp() shaders.MatVecOp {
	d := uint32(c.Width)
	return shaders.MatVecOp{Rows: 3 * d, Cols: d, Flags: shaders.MatVecLayerNorm | shaders.MatVecBias, Eps: lnEps}
}

func (c config) attnProjOp() shaders.MatVecOp {
	d := uint32(c.Width)
	return shaders.AttnProj.Op(shaders.MatVecOp{Rows: d, Cols: d, Flags: shaders.MatVecBias | shaders.MatVecResidual})
}

func (c config) mlpFCOp() shaders.MatVecOp {
	d := uint32(c.Width)
	return shaders.MatVecOp{Rows: 4 * d, Cols: d, Flags: shaders.MatVecLayerNorm | shaders.MatVecBias | shaders.MatVecGELU, Eps: lnEps}
}

func (c config) mlpProjOp() shaders.MatVecOp {
	d := uint32(c.Width)
	return shaders.MatVecOp{Rows: d, Cols: 4 * d, Flags: shaders.MatVecBias | shaders.MatVecResidual}
}

// lmHeadOp is the LM head's op for the shard sh: its rows of the logits.
func (c config) lmHeadOp(sh vocabShard) shaders.MatVecOp {
	return shaders.MatVecOp{Rows: uint32(sh.rows), Cols: uint32(c.Width), Flags: shaders.MatVecLayerNorm, Eps: lnEps, OutOffset: uint32(sh.row0)}
}

// stepParams is the Step uniform's value for the token at pos.
func stepParams(pos int) recorder.Params {
	return recorder.ParamsOf(uint32(pos), uint32(pos+1), 0, 0)
}

// forward is one token's dispatches, in order, over weights w and state
// st, with stepArg as every kernel's Step uniform: an embed per vocabulary
// shard; per layer qkv (the first layer norm fused in), attention's split
// pass (the KV-cache append inside it), attn_proj into the residual
// stream (attention's combine pass fused in), mlp_fc_gelu (the second layer norm fused in) and
// mlp_proj into the residual stream; an LM head per shard (the final layer
// norm fused in); the two argmax passes.
func forward(c config, ks *kernels, w *gpuWeights, st *state, stepArg recorder.Arg) []launch {
	d, v := uint32(c.Width), uint32(c.Vocab)
	u32 := recorder.ParamsOf[uint32]
	at := c.attnOp()
	attDims := at.Params()
	// Each projection's op is the one its kernel was compiled for.
	mv := func(k *kernel, op shaders.MatVecOp, args ...recorder.Arg) launch {
		wb := c.matrixBytes(int64(op.Rows) * int64(op.Cols))
		if op.Flags&shaders.MatVecBias != 0 {
			wb += 4 * int64(op.Rows)
		}
		if op.Flags&shaders.MatVecLayerNorm != 0 {
			wb += 8 * int64(op.Cols)
		}
		return launch{k: k, groups: op.Groups(), args: append(args, op.Params()), step: -1, weightBytes: wb}
	}

	// attn_proj merges attention's partials itself (shaders.AttnProj):
	// MatVec's bindings with the partials in the unread x, gamma and beta,
	// then the partials, the attention dims and the Step.
	attnProj := func(lw *layerTensors[*recorder.Buffer]) launch {
		l := mv(ks.attnProj, c.attnProjOp(), st.parts, lw.wo, lw.bo, st.parts, st.parts, st.x)
		l.args = append(l.args, st.parts, attDims, stepArg)
		l.step = len(l.args) - 1
		return l
	}
	var ls []launch
	for _, sh := range w.shards {
		ls = append(ls, launch{k: ks.embed, groups: [3]uint32{(d + 63) / 64, 1, 1}, args: []recorder.Arg{st.tok, sh.wte, w.wpe, st.x, u32(d, uint32(sh.row0), uint32(sh.rows), 0), stepArg}, step: 5, weightBytes: 8 * int64(d)})
	}
	for l := range c.Layers {
		lw := &w.layers[l]
		ls = append(ls,
			mv(ks.qkv, c.qkvOp(), st.x, lw.wqkv, lw.bqkv, lw.ln1G, lw.ln1B, st.qkv),
			launch{k: ks.attnSplit, groups: at.SplitGroups(), args: []recorder.Arg{st.qkv, st.kc[l], st.vc[l], st.parts, attDims, stepArg}, step: 5, kvBytesPerPos: 8 * int64(d)},
			attnProj(lw),
			mv(ks.mlpFC, c.mlpFCOp(), st.x, lw.wfc, lw.bfc, lw.ln2G, lw.ln2B, st.u),
			mv(ks.mlpProj, c.mlpProjOp(), st.u, lw.wpr, lw.bpr, st.u, st.u, st.x),
		)
	}
	for i, sh := range w.shards {
		ls = append(ls, mv(ks.lmHeads[i], c.lmHeadOp(sh), st.x, sh.head, st.x, w.lnfG, w.lnfB, st.logits))
	}
	ls = append(ls,
		launch{k: ks.argmaxPartial, groups: shaders.ArgmaxDispatch(v), args: []recorder.Arg{st.logits, st.amax, shaders.ArgmaxPartialParams(v)}, step: -1},
		launch{k: ks.argmaxFinal, groups: [3]uint32{1, 1, 1}, args: []recorder.Arg{st.amax, st.tok, shaders.ArgmaxFinalParams(shaders.ArgmaxGroups(v), 0)}, step: -1},
	)
	return ls
}

// reference is the float64 model the GPU paths are checked against: the
// same weights (read from the float32 host copies), the same forward pass,
// with its own KV cache.
type reference struct {
	c      config
	w      *tensors[[]float32]
	kc, vc [][]float64 // per layer, ctx×d
}

func newReference(c config, w *tensors[[]float32]) *reference {
	r := &reference{c: c, w: w, kc: make([][]float64, c.Layers), vc: make([][]float64, c.Layers)}
	for l := range c.Layers {
		r.kc[l] = make([]float64, c.Ctx*c.Width)
		r.vc[l] = make([]float64, c.Ctx*c.Width)
	}
	return r
}

// forward runs token at pos (appending to the reference's KV cache, so
// positions must come in order from 0) and returns the logits.
func (r *reference) forward(token, pos int) []float64 {
	c, w := r.c, r.w
	d, hd := c.Width, c.headDim()
	x := make([]float64, d)
	for i := range x {
		x[i] = float64(w.wte[token*d+i]) + float64(w.wpe[pos*d+i])
	}
	for l := range c.Layers {
		lw := &w.layers[l]
		h := layerNorm(x, lw.ln1G, lw.ln1B)
		qkv := matvec(lw.wqkv, lw.bqkv, h, 3*d)
		q := qkv[:d]
		copy(r.kc[l][pos*d:(pos+1)*d], qkv[d:2*d])
		copy(r.vc[l][pos*d:(pos+1)*d], qkv[2*d:])
		att := make([]float64, d)
		scale := 1 / math.Sqrt(float64(hd))
		p := make([]float64, pos+1)
		for hh := range c.Heads {
			o := hh * hd
			m := math.Inf(-1)
			for j := range pos + 1 { // the causal mask: positions 0..pos
				var s float64
				for e := range hd {
					s += q[o+e] * r.kc[l][j*d+o+e]
				}
				p[j] = s * scale
				m = math.Max(m, p[j])
			}
			var sum float64
			for j := range p {
				p[j] = math.Exp(p[j] - m)
				sum += p[j]
			}
			for j := range p {
				for e := range hd {
					att[o+e] += p[j] / sum * r.vc[l][j*d+o+e]
				}
			}
		}
		y := matvec(lw.wo, lw.bo, att, d)
		for i := range x {
			x[i] += y[i]
		}
		h = layerNorm(x, lw.ln2G, lw.ln2B)
		u := matvec(lw.wfc, lw.bfc, h, 4*d)
		for i, v := range u {
			t := math.Max(-15, math.Min(15, 0.7978845608*(v+0.044715*v*v*v)))
			u[i] = 0.5 * v * (1 + math.Tanh(t))
		}
		y = matvec(lw.wpr, lw.bpr, u, d)
		for i := range x {
			x[i] += y[i]
		}
	}
	return matvec(w.head, nil, layerNorm(x, w.lnfG, w.lnfB), c.Vocab)
}

func layerNorm(x []float64, g, b []float32) []float64 {
	var mean, v float64
	for _, e := range x {
		mean += e
	}
	mean /= float64(len(x))
	for _, e := range x {
		v += (e - mean) * (e - mean)
	}
	inv := 1 / math.Sqrt(v/float64(len(x))+lnEps)
	y := make([]float64, len(x))
	for i, e := range x {
		y[i] = (e-mean)*inv*float64(g[i]) + float64(b[i])
	}
	return y
}

// matvec is y = W·x + b for an output-major W of n rows, its rows split
// over the host's cores (the LM head of the GPT-2 shape is 38M products).
func matvec(w, b []float32, x []float64, n int) []float64 {
	k := len(x)
	y := make([]float64, n)
	workers := min(runtime.GOMAXPROCS(0), max(1, n*k/(1<<18)))
	var wg sync.WaitGroup
	for part := range workers {
		lo, hi := n*part/workers, n*(part+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := lo; r < hi; r++ {
				row := w[r*k : (r+1)*k]
				var s float64
				for i, e := range row {
					s += float64(e) * x[i]
				}
				if b != nil {
					s += float64(b[r])
				}
				y[r] = s
			}
		}()
	}
	wg.Wait()
	return y
}

// argmax is the GPU's rule: the largest value, the lowest index on a tie.
func argmax[T float32 | float64](v []T) int {
	best := 0
	for i, e := range v {
		if e > v[best] {
			best = i
		}
	}
	return best
}
