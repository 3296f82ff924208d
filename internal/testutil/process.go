package testutil

import (
	"bytes"
	"os/exec"
	"sync"
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

// WaitOrKill waits for cmd, started and asked to stop (its stdin closed, a
// signal sent), to exit, and kills it when it has not within grace.
func WaitOrKill(cmd *exec.Cmd, grace time.Duration) {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		cmd.Process.Kill()
		<-done
	}
}
