package graphfile

import "fmt"

// Error is a graph file Decode refused, or a File Encode refused: Op is
// "Decode" or "Encode", Where the part of the file ("header", "node 12",
// "buffer 3"), Offset the byte offset of the field at fault when the
// file's structure was at fault (-1 otherwise: an index that points
// nowhere, a reader's error), Err what is wrong.
type Error struct {
	Op     string
	Where  string
	Offset int64
	Err    error
}

func (e *Error) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("graphfile: %s: %s (byte %d): %v", e.Op, e.Where, e.Offset, e.Err)
	}
	return fmt.Sprintf("graphfile: %s: %s: %v", e.Op, e.Where, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
