// Package engine is a stream's batch and hand-off machinery: the open
// batch and its encoder, the submitter that finishes and submits batches
// in order, the room a caller waits for when the submitter is behind, and
// every queue write and submission a stream makes. It is the one
// submission site of a stream: nothing else calls the driver's Submit or
// WriteBuffer.
//
// An operation goes through it as a transaction: Do takes the owner's lock,
// asks the owner's Gate for the operation's verdict once, and hands the
// callback a *Tx carrying that verdict, the pool and cache modes, and the
// engine's epoch at that moment. Tx.Wait (and Tx.SubmitWait, a timed
// submission) is the only way a transaction gives the lock up to wait; after it the transaction's encoding, queue
// writes and submits fail with ErrWaited until Tx.Readmit has confirmed
// that no lifecycle transition moved the epoch meanwhile (or, when one did,
// that the Gate admits the operation again). database/sql's Tx is the
// shape: the rule lives in the type, not at each call site.
//
// What it never does: it knows no graphs, recordings, Vars or profiles.
// What a batch holds on to is given to it through its own small
// interfaces (Holder for a replayed graph's pins, Entry for the program of
// counted replays), and what a failed batch lost is handed back through
// Config.Failed. It imports nothing of the recorder or of the wgpu
// bindings, so its tests run on internal/driver/fake without cgo.
//
// It also encodes ahead what a replay would otherwise encode on the
// caller's path: a RampWorker fills a short program's ramp steps, a
// Preencoder a long program's next replay, each on a goroutine and with an
// encoder of its own. The owner decides when, and joins what they made to
// the open batch.
//
// Cost: a hand-off takes a pooled job and a spare encoder and allocates
// nothing; a transaction allocates one Tx.
//
// Locks: the engine takes no lock of its own on the owner's path but the
// ramp worker's (lockrank.Ramp, a leaf). It runs under its owner's
// lock (Config.Lock, a lockrank.Stream mutex), which it releases only in a
// transaction's waits (Tx.Wait, Flush, Drain, WaitRoom, HandOffFull,
// SubmitWait), and it takes the
// submitter queue's lock (lockrank.Submitter) beneath it.
package engine
