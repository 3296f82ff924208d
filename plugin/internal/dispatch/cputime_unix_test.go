//go:build unix

package dispatch_test

import (
	"syscall"
	"time"
)

// cpuNow is the CPU time this process has used, user and system: what the
// linear tests compare, so that a call descheduled on a busy machine does
// not look slower than it is.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
