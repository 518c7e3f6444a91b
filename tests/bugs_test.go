package tests

// Library bugs this suite exposes that were still open when it was
// written. Each one skips exactly the check it breaks, with its message
// saying what is wrong; delete the constant (and the compiler shows every
// skip to remove) once the bug is fixed.
const (
	// wgpu/device.go Device.Close dereferences a nil receiver (d.closing)
	// where Stream.Close, Buffer.Release and Graph.Release accept nil.
	bugNilDeviceClose = "BUG: (*wgpu.Device)(nil).Close panics with a nil pointer dereference instead of returning nil"

	// wgpu/buffer.go Device.ReadMapped: the map callback writes the local
	// `status` on whichever goroutine's Submit or Poll wgpu-native runs it
	// from, while the caller reads it in its Poll loop: a data race that
	// `go test -race` reports whenever two goroutines read and submit on one
	// device.
	bugReadMappedRace = "BUG: wgpu.Device.ReadMapped's map-callback status is written and read on different goroutines without synchronisation (data race under -race)"

	// wgpu/device.go Device.Close releases the native device while buffers
	// and query sets made from it are still alive; releasing such a buffer
	// afterwards (Stream.Close, Buffer.Release, Graph.Release of a stream of
	// the closed device), or leaving a query set alive at all, makes the next
	// device the process opens abort at its first submission
	// ("wgpuQueueSubmitForIndex: Attempt to use a resource with a different
	// device from the one that created it").
	bugReleaseAfterDeviceClose = "BUG: objects of a closed device released afterwards (or a query set alive at Device.Close) make the next device abort on its first submission"

	// wgpu/device.go Device.Close releases the kernels (pipelines) while a
	// stream still holds launches encoded but not submitted; the stream's
	// next flush (its Close, say) ends the compute pass and wgpu-native
	// aborts the process: "ComputePipeline[Id(0,1,vk)] does not exist" in
	// wgpuComputePassEncoderEnd (wgpu-core storage.rs:113), via
	// Encoder.EndPass ← Encoder.Finish ← Stream.flushLocked ← Stream.Close.
	bugDeviceCloseUnderEncodedWork = "BUG: Device.Close under a stream's unsubmitted launches makes the stream's next flush (its Close) abort the process (ComputePipeline does not exist)"

	// recorder/graph.go Graph.Replay checks g.released before s.closed under
	// the stream's lock, so a Replay that passed its first check just before
	// a concurrent Stream.Close (which releases the stream's graphs) returns
	// ErrReleased instead of ErrClosed.
	bugReplayRacingClose = "BUG: Graph.Replay racing Stream.Close returns ErrReleased instead of ErrClosed"

	// recorder/profile.go StartProfile and EndProfile do not re-check
	// s.closed after taking the stream's lock: a StartProfile racing
	// Stream.Close creates a timestamp QuerySet and installs it on the closed
	// stream, where nothing releases it (Device.Live().QuerySets stays 1,
	// then bugReleaseAfterDeviceClose breaks the next device), and an
	// EndProfile racing Close returns ErrInvalidArgument ("token N is not the
	// profile running on this stream") instead of ErrClosed.
	bugProfileRacingClose = "BUG: StartProfile/EndProfile racing Stream.Close leak a QuerySet on the closed stream and return ErrInvalidArgument instead of ErrClosed"
)
