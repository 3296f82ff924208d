//go:build !unix

package dispatch_test

import "time"

// cpuNow is the wall clock where the process's CPU time is not at hand.
func cpuNow() time.Duration { return time.Duration(time.Now().UnixNano()) }
