// Three.js r170 - WebGPU
// system
var<private> instanceIndex : u32;

// uniforms
struct NodeBuffer_554Struct {
	value : array< vec3<f32> >
};
@binding( 0 ) @group( 0 )
var<storage, read_write> NodeBuffer_554 : NodeBuffer_554Struct;

struct NodeBuffer_555Struct {
	value : array< vec4<f32> >
};
@binding( 1 ) @group( 0 )
var<storage, read_write> NodeBuffer_555 : NodeBuffer_555Struct;

struct computeStruct {
	nodeUniform0 : f32,
	nodeUniform1 : vec3<f32>
};
@binding( 2 ) @group( 0 )
var<uniform> computeStruct_1 : computeStruct;

// codes
fn tsl_xor( a : bool, b : bool ) -> bool { return ( a || b ) && !( a && b ); }

@compute @workgroup_size( 64, 1, 1 )
fn main( @builtin( global_invocation_id ) id : vec3<u32>,
	@builtin( workgroup_id ) workgroupId : vec3<u32>,
	@builtin( local_invocation_id ) localId : vec3<u32>,
	@builtin( num_workgroups ) numWorkgroups : vec3<u32> ) {

	// system
	instanceIndex = id.x + id.y * numWorkgroups.x * u32( 64 ) + id.z * numWorkgroups.x * numWorkgroups.y * u32( 64 );

	// vars
	var nodeVar0 : vec3<f32>;
	var nodeVar1 : vec3<f32>;

	// flow
	// code
	if ( instanceIndex >= 100u ) { return; }
	nodeVar0 = NodeBuffer_554.value[ instanceIndex ];
	nodeVar1 = NodeBuffer_555.value[ instanceIndex ].xyz;
	nodeVar1 = ( nodeVar1 + ( computeStruct_1.nodeUniform1 * vec3<f32>( computeStruct_1.nodeUniform0 ) ) );
	if ( ( nodeVar0.y < 0.0 ) ) {
		nodeVar1.y = ( - nodeVar1.y * 0.5 );
	}
	NodeBuffer_555.value[ instanceIndex ] = vec4<f32>( nodeVar1, 1.0 );
	NodeBuffer_554.value[ instanceIndex ] = ( nodeVar0 + ( nodeVar1 * vec3<f32>( computeStruct_1.nodeUniform0 ) ) );
	if ( tsl_xor( nodeVar0.x > 0.0, nodeVar0.z > 0.0 ) ) { NodeBuffer_554.value[ instanceIndex ].x = 0.0; }

}