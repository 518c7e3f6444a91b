package wgsl

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sentinels, each wrapped by a typed error that names the thing concerned.
var (
	// ErrNoEntry: the module has no entry point of that name (*EntryError).
	ErrNoEntry = errors.New("no such entry point")
	// ErrNotCompute: the entry point exists but is not @compute (*EntryError).
	ErrNotCompute = errors.New("entry point is not @compute")
	// ErrUnknownOverride: a constants key names no override of the module,
	// or two keys name the same override (*OverrideError).
	ErrUnknownOverride = errors.New("unknown override")
	// ErrMissingOverride: an override has neither a value in constants nor
	// an initializer (*OverrideError).
	ErrMissingOverride = errors.New("override has no value")
	// ErrUnrepresentable: a value in constants does not fit the override's
	// type (*OverrideError).
	ErrUnrepresentable = errors.New("value not representable in the override's type")
)

// Error is a problem in the WGSL source, at a 1-based line and column
// (columns count characters, not bytes), said in the terms of the WGSL
// specification.
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("wgsl:%d:%d: %s", e.Line, e.Col, e.Msg) }

// errorAt positions msg at byte offset pos of src.
func errorAt(src string, pos int, format string, args ...any) *Error {
	pos = min(max(pos, 0), len(src))
	line := 1 + strings.Count(src[:pos], "\n")
	start := strings.LastIndexByte(src[:pos], '\n') + 1
	return &Error{Line: line, Col: utf8.RuneCountInString(src[start:pos]) + 1, Msg: fmt.Sprintf(format, args...)}
}

// EntryError is a request for an entry point the module cannot satisfy.
type EntryError struct {
	Entry string
	// Stage is the stage the entry point is declared for (ErrNotCompute).
	Stage Stage
	// Found lists the module's @compute entry points in source order.
	Found []string
	Err   error // ErrNoEntry or ErrNotCompute
}

func (e *EntryError) Error() string {
	if errors.Is(e.Err, ErrNotCompute) {
		return fmt.Sprintf("wgsl: entry point %q is @%s, not @compute; @compute entry points: %s", e.Entry, e.Stage, list(e.Found))
	}
	return fmt.Sprintf("wgsl: no @compute entry point named %q; found %s", e.Entry, list(e.Found))
}

func (e *EntryError) Unwrap() error { return e.Err }

// OverrideError is a problem with the value an override gets.
type OverrideError struct {
	// Override is the override concerned; empty for an unknown key.
	Override string
	// Key is the constants key concerned, if any.
	Key string
	// Value is the value given under Key (ErrUnrepresentable).
	Value float64
	// Overrides lists the module's overrides, "name" or "name (@id N)"
	// (ErrUnknownOverride).
	Overrides []string
	// Msg details the problem.
	Msg string
	Err error // ErrUnknownOverride, ErrMissingOverride or ErrUnrepresentable
}

func (e *OverrideError) Error() string {
	switch {
	case errors.Is(e.Err, ErrUnknownOverride) && e.Override == "":
		return fmt.Sprintf("wgsl: constants key %q names no override; the module's overrides are %s", e.Key, list(e.Overrides))
	case e.Msg != "":
		return fmt.Sprintf("wgsl: override %s: %s", e.Override, e.Msg)
	}
	return fmt.Sprintf("wgsl: override %s: %v", e.Override, e.Err)
}

func (e *OverrideError) Unwrap() error { return e.Err }

func list(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return "[" + strings.Join(names, ", ") + "]"
}
