alias RTArr = array<f32>;

struct Buf {
  /* @offset(0) */
  data : RTArr,
}

alias Arr = array<i32, 4u>;

struct S {
  /* @offset(0) */
  field0 : array<i32>,
}

struct UBO {
  /* @offset(0) */
  n : u32,
  /* @offset(4) */
  scale : f32,
}

var<private> gl_GlobalInvocationID : vec3u;

@group(0) @binding(0) var<storage, read_write> x_10 : Buf;

@group(0) @binding(1) var<uniform> x_16 : UBO;

@group(0) @binding(2) var<storage, read_write> x_5 : S;

fn twice_f1_(x : ptr<function, f32>) -> f32 {
  let x_40 : f32 = *(x);
  *(x) = (x_40 + 1.0f);
  return (x_40 * 2.0f);
}

fn main_1() {
  var i : u32;
  var param : f32;
  var sum : i32;
  var j : i32;
  var arr : Arr;
  let x_25 : u32 = gl_GlobalInvocationID.x;
  i = x_25;
  let x_27 : u32 = i;
  let x_29 : u32 = x_16.n;
  if ((x_27 >= x_29)) {
    return;
  }
  let x_33 : u32 = i;
  let x_35 : f32 = x_10.data[x_33];
  param = x_35;
  let x_36 : f32 = twice_f1_(&(param));
  let x_38 : f32 = x_16.scale;
  x_10.data[x_33] = ((x_36 * x_38) + param);
  sum = 0i;
  j = 0i;
  arr = Arr(1i, 2i, 3i, bitcast<i32>(x_33));
  loop {
    if ((j < 4i)) {
    } else {
      break;
    }
    let x_30 : i32 = j;
    let x_32 : i32 = arr[x_30];
    sum = (sum + x_32);

    continuing {
      j = (j + 1i);
    }
  }
  loop {
    if (!((j > 0i))) { break; }
    sum = (sum * 2i);
    continuing {
      j = (j - 1i);
      break if (sum > 100i);
    }
  }
  x_5.field0[x_33] = ((sum * 10i) + j);
  return;
}

@compute @workgroup_size(64i, 1i, 1i)
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID_param : vec3u) {
  gl_GlobalInvocationID = gl_GlobalInvocationID_param;
  main_1();
}