package relay

import (
	"os/exec"
	"syscall"
)

// signalOnExit has the server sent SIGTERM if the proxy ends without
// stopping it (SIGKILL, a crash), as a client that ends stops its server;
// its stdin's end alone does not stop every server.
func signalOnExit(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
