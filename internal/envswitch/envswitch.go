// Package envswitch reads softgraph's on/off environment variables
// (SOFTGRAPH_PREENCODE, SOFTGRAPH_FINISH_AHEAD, SOFTGRAPH_SHARED_FINISH):
// one reader, so every switch takes the same spellings. It is its own
// package because both wgpu and recorder read switches, and recorder
// imports wgpu.
package envswitch

import (
	"os"
	"strings"
)

// Read reads an on/off environment variable: "1" or "true" is on, "0" or
// "false" off, in any case; set is false for anything else (the caller's
// default stays).
func Read(name string) (on, set bool) {
	switch v := os.Getenv(name); {
	case v == "1" || strings.EqualFold(v, "true"):
		return true, true
	case v == "0" || strings.EqualFold(v, "false"):
		return false, true
	}
	return false, false
}
