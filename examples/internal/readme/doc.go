// Package readme holds no code: its test checks what the repository's
// README.md promises about the examples against the examples themselves
// (every flag a command line there passes is one the example defines, and
// every example in the list of longer ones has -quick), so the README stays
// true on a fresh machine as the examples change. It needs no GPU and no
// cgo.
package readme
