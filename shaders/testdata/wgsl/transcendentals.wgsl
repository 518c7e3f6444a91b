@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let x = v[g.x];
  v[g.x] = exp(x * 0.5) + sin(x) * cos(x) + sqrt(abs(x)) + log2(x * x + 1) + tanh(x);
}