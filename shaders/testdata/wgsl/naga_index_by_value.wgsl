fn index_arg_array(a: array<i32, 5>, i: i32) -> i32 {
    return a[i];
}

fn index_let_array(i: i32, j: i32) -> i32 {
  let a = array<array<i32, 2>, 2>(array(1, 2), array(3, 4));
  return a[i][j];
}

fn index_let_matrix(i: i32, j: i32) -> f32 {
  let a = mat2x2<f32>(1, 2, 3, 4);
  return a[i][j];
}

fn index_let_array_1d(vi: u32) -> vec4<f32> {
	let arr = array<i32, 5>(1, 2, 3, 4, 5);
	let value = arr[vi];
	return vec4<f32>(vec4<i32>(value));
}

@group(0) @binding(0) var<storage, read_write> port_out: array<f32>;
@compute @workgroup_size(1) fn port_main() {
    port_out[0] = f32(index_arg_array(array(1, 2, 3, 4, 5), 3)) + f32(index_let_array(1, 0)) + index_let_matrix(1, 1) + index_let_array_1d(2u).x;
}
