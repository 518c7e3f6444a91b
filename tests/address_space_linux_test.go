package tests

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// limitAddressSpace lets this process map at most extra bytes more than it
// has mapped now (RLIMIT_AS's soft limit; the hard limit is kept), so a
// software adapter's allocation larger than extra fails as it would on a
// device whose memory is full, without touching the machine's memory. It
// reports whether the limit was set.
func limitAddressSpace(extra uint64) bool {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	var vm uint64
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmSize:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				return false
			}
			vm = kb << 10
		}
	}
	var lim syscall.Rlimit
	if vm == 0 || syscall.Getrlimit(syscall.RLIMIT_AS, &lim) != nil {
		return false
	}
	lim.Cur = min(vm+extra, lim.Max)
	return syscall.Setrlimit(syscall.RLIMIT_AS, &lim) == nil
}
