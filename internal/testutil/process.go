package testutil

import (
	"bytes"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// SyncBuffer is a bytes.Buffer that one goroutine may write while another
// reads it: a relay's log, or a child process's stderr, which exec copies
// in a goroutine of its own.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WaitOrStop waits for cmd, started and asked to stop (its stdin closed, a
// signal sent), to exit; when it has not within grace it is sent SIGTERM,
// and SIGKILL two seconds later, as the MCP SDKs' clients stop a server.
func WaitOrStop(cmd *exec.Cmd, grace time.Duration) {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	for _, step := range []struct {
		wait time.Duration
		sig  os.Signal
	}{{grace, syscall.SIGTERM}, {2 * time.Second, os.Kill}} {
		select {
		case <-done:
			return
		case <-time.After(step.wait):
			cmd.Process.Signal(step.sig)
		}
	}
	<-done
}
