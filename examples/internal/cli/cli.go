// Package cli is how the examples parse their flags and end: one exit
// status for each kind of outcome, the same in every example, as Go's own
// flag package gives a program that parses with flag.ExitOnError — 0 after
// -h or -help (the usage is printed), 2 for flags it refuses (the error
// and the usage are printed), 1 for a failure of the program itself.
// The examples parse with ContinueOnError, so their run functions can be
// tested without exiting, and end through Exit.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

// UsageError is a command line the flags refused (flag.FlagSet.Parse's
// error), already printed with the usage by the flag set.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Parse parses args with fs, which must be ContinueOnError: flag.ErrHelp
// after -h, a *UsageError for flags it refuses, and a *UsageError too for
// arguments left after the flags when the program takes none (positional
// false).
func Parse(fs *flag.FlagSet, args []string, positional bool) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &UsageError{Err: err}
	}
	if !positional && fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q (%s takes flags only)", fs.Arg(0), fs.Name())
		fmt.Fprintln(fs.Output(), err)
		fs.Usage()
		return &UsageError{Err: err}
	}
	return nil
}

// Status is the exit status for run's error: 0 for none or flag.ErrHelp,
// 2 for a *UsageError, 1 otherwise.
func Status(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(*UsageError)):
		return 2
	}
	return 1
}

// Exit ends the program named name with Status(err), printing err (unless
// the flag set printed it already).
func Exit(name string, err error) {
	code := Status(err)
	if code == 1 {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	}
	os.Exit(code)
}
