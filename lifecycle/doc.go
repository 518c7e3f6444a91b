// Package lifecycle owns the capture rule of a stream: the ordering
// NoCapture → Prepare → Capture → NoCapture, and what every stream operation
// may do in each of those states.
//
// It is a Go rendering of cubecl-runtime's StreamCaptureState, extended with
// an operation table. The rule lives here, in one small value type, because
// it is the same for every stream: the recorder asks State.Admit at the start
// of every operation (allocation, Save and Load included), under the
// stream's lock, and acts on that verdict until the operation commits; pool
// and cache modes come from the same state under the same hold. A stream
// keeps its state in a Session, which also owns the recording in progress
// (held exactly while the state is Capture, by construction) and the
// running profile (one at a time, refused while recording).
//
//	op         NoCapture  Prepare   Capture
//	Launch     execute    execute   record
//	Write      execute    execute   defer-error (nil now; EndCapture fails)
//	Read       execute    execute   refuse
//	Sync       execute    execute   refuse
//	Profile    execute    execute   refuse
//	Replay     execute    execute   record (a child graph)
//	Rebind     execute    execute   refuse
//	Copy       execute    execute   record
//	Clear      execute    execute   record
//	Alloc      execute    execute   execute
//	Trim       execute    refuse    refuse
//	Flush      execute    execute   execute
//	Branch     execute    execute   record (If, While)
//	Load       execute    refuse    refuse
//	Save       execute    execute   refuse
//	SetVar     execute    execute   refuse
//
// The transitions are Prepare, Begin, End and Abort; each refuses an
// out-of-order call and changes nothing. PoolMode and CacheMode give the
// memory pool's and the params cache's behaviour for each state.
//
// What it never does: touch a GPU, allocate, lock, or log. A State is a
// single byte; the zero value is NoCapture. It is not safe for concurrent use:
// the stream that owns it guards it with its own mutex.
//
// Costs: every method is a switch on one byte or a table lookup.
package lifecycle
