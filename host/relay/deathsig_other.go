//go:build !linux

package relay

import "os/exec"

// signalOnExit does nothing where the system cannot signal a process when
// its parent ends: the server then sees only its stdin's end.
func signalOnExit(*exec.Cmd) {}
