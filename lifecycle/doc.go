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
//	op             NoCapture  Prepare   Capture                        profiling  fails capture
//	Launch         execute    execute   record                         -          yes
//	Write          execute    execute   defer-error (nil; End fails)   -          yes
//	Read           execute    execute   refuse                         -          yes
//	Sync           execute    execute   refuse                         -          yes
//	Profile        execute    execute   refuse                         refuse     yes
//	EndProfile     execute    execute   refuse                         -          yes
//	ProfileReplay  execute    execute   refuse                         refuse     yes
//	Replay         execute    execute   record (a child graph)         -          yes
//	Rebind         execute    execute   refuse                         -          yes
//	Copy           execute    execute   record                         -          yes
//	Clear          execute    execute   record                         -          yes
//	Alloc          execute    execute   execute                        -          no (executes; its failure is returned now)
//	Trim           execute    refuse    refuse                         -          yes
//	Flush          execute    execute   execute                        -          no (executes; records nothing)
//	Branch         execute    execute   record (If, While)             -          yes
//	Load           execute    refuse    refuse                         -          yes
//	Save           execute    execute   refuse                         -          yes
//	SetVar         execute    execute   refuse                         -          yes
//
// "profiling" is the verdict while a profile runs outside Capture ("-":
// the state's); "fails capture" says whether a call refused inside the
// window (by the table or by its own argument checks) makes EndCapture
// fail (State.FailsCapture), which the stream decides in the lock hold that
// refuses the call. Of the transitions, a GraphPrepare or BeginCapture
// refused inside the window (a nested capture) fails it too. An operation that gives the stream's lock up to wait
// and then asks again (Session.Readmit) gets the state's cell without the
// profiling column: a capture begun during the wait refuses it, a profile
// started during the wait does not, since the column decides what may
// begin while a profile runs and the operation began before it. A rule
// changes in op.go's table and in the test that restates it
// (TestAdmitIsTheDocumentedTable), nowhere else.
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
