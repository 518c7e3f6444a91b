struct Particle {
    position: vec3<f32>,
    age: f32,
    velocity: vec3<f32>,
    lifetime: f32,
};

struct ParticlesBuffer {
    particles: array<Particle>,
};

struct SimParams {
    dt: f32,
    time: f32,
};

struct Spawner {
    transform: mat3x4<f32>, // transposed (row-major)
    spawn: atomic<i32>,
    seed: u32,
    count_unused: u32,
    effect_index: u32,
};

struct IndirectBuffer {
    indices: array<u32>,
};

struct RenderIndirectBuffer {
    vertex_count: u32,
    instance_count: atomic<u32>,
    base_index: u32,
    vertex_offset: i32,
    base_instance: u32,
    alive_count: atomic<u32>,
    dead_count: atomic<u32>,
    max_spawn: atomic<u32>,
    ping: u32,
};

@group(0) @binding(0) var<uniform> sim_params : SimParams;
@group(1) @binding(0) var<storage, read_write> particle_buffer : ParticlesBuffer;
@group(1) @binding(1) var<storage, read_write> indirect_buffer : IndirectBuffer;
@group(2) @binding(0) var<storage, read_write> spawner : Spawner; // NOTE - same group as update
@group(3) @binding(0) var<storage, read_write> render_indirect : RenderIndirectBuffer;

var<private> seed : u32 = 0u;

const tau: f32 = 6.283185307179586476925286766559;

// Rand: PCG
// https://www.reedbeta.com/blog/hash-functions-for-gpu-rendering/
fn pcg_hash(input: u32) -> u32 {
    var state: u32 = input * 747796405u + 2891336453u;
    var word: u32 = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

fn to_float01(u: u32) -> f32 {
    // Note: could generate only 24 bits of randomness
    return bitcast<f32>((u & 0x007fffffu) | 0x3f800000u) - 1.;
}

// Random floating-point number in [0:1]
fn frand() -> f32 {
    seed = pcg_hash(seed);
    return to_float01(pcg_hash(seed));
}

struct PosVel {
    pos: vec3<f32>,
    vel: vec3<f32>,
};

fn init_pos_vel(index: u32) -> PosVel {
    var ret : PosVel;
    // Sphere center
    let center = vec3<f32>(0., 0., 0.);
    // Sphere radius
    let radius = 2.;
    // Radial speed
    let speed = 1.5;
    // Spawn randomly along the sphere surface using Archimedes's theorem
    var theta = frand() * tau;
    var z = frand() * 2. - 1.;
    var phi = acos(z);
    var sinphi = sin(phi);
    var x = sinphi * cos(theta);
    var y = sinphi * sin(theta);
    var dir = vec3<f32>(x, y, z);
    ret.pos = center + radius * dir;
    // Radial speed away from sphere center
    ret.vel = dir * speed;
    return ret;
}

fn init_lifetime() -> f32 {
    return 5.0;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) global_invocation_id: vec3<u32>) {
    let thread_index = global_invocation_id.x;

    // Cap to max number of dead particles, copied from dead_count at the end of the
    // previous iteration, and constant during this pass (unlike dead_count).
    let max_spawn = atomicLoad(&render_indirect.max_spawn);
    if (thread_index >= max_spawn) {
        return;
    }

    // Recycle a dead particle
    let dead_index = atomicSub(&render_indirect.dead_count, 1u) - 1u;
    let index = indirect_buffer.indices[3u * dead_index + 2u];

    // Update PRNG seed
    seed = pcg_hash(index ^ spawner.seed);

    // Initialize new particle
    var particle = Particle();
    {
        let index = index; // shadowed, as generated modifier code does
        let posVel = init_pos_vel(index);
        particle.position = posVel.pos;
        particle.velocity = posVel.vel;
    }
    particle.lifetime = init_lifetime();
    particle.age = 0.0;

    // Store
    particle_buffer.particles[index] = particle;

    // Add to alive list
    let ping = render_indirect.ping;
    let indirect_index = atomicAdd(&render_indirect.alive_count, 1u);
    indirect_buffer.indices[3u * indirect_index + ping] = index;

    // Add to render list
    atomicAdd(&render_indirect.instance_count, 1u);
}
