struct Data {
    counter: atomic<u32>,
    values: array<u32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> global: Data;

fn collatz(n: u32) -> u32 {
    var n_1: u32;
    var i: u32 = 0u;

    n_1 = n;
    loop {
        let _e4 = n_1;
        if (_e4 > 1u) {
        } else {
            break;
        }
        {
            let _e8 = n_1;
            if ((_e8 % 2u) == 0u) {
                {
                    let _e14 = n_1;
                    n_1 = (_e14 / 2u);
                }
            } else {
                {
                    let _e19 = n_1;
                    n_1 = ((3u * _e19) + 1u);
                }
            }
            let _e23 = i;
            i = (_e23 + 1u);
        }
    }
    let _e26 = i;
    return _e26;
}

fn main_1() {
    var index: u32;

    let _e3 = gl_GlobalInvocationID_1;
    index = _e3.x;
    let _e5 = arrayLength((&global.values));
    let _e7 = index;
    if (_e7 >= _e5) {
        return;
    }
    let _e10 = index;
    let _e12 = global.values[_e10];
    let _e13 = collatz(_e12);
    global.values[_e7] = _e13;
    let _e16 = atomicAdd((&global.counter), _e13);
    return;
}

@compute @workgroup_size(8, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}