//go:build !race

package tests

// raceEnabled: this binary runs under the race detector, whose shadow
// memory multiplies what a huge host allocation costs.
const raceEnabled = false
