package main

import (
	"bufio"
	"bytes"
	"io"
	"os/exec"
	"time"

	"github.com/toolerr/toolerr/internal/testutil"
)

// stdioServer is a server process spoken to a line at a time over its
// stdin and stdout, as the hostile lines and the real servers' sessions
// are sent.
type stdioServer struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte // what it writes, a line at a time without the newline; closed at its end
	stderr testutil.SyncBuffer
}

// startStdio starts cmd with its stdin and stdout piped to the caller and
// its stderr kept.
func startStdio(cmd *exec.Cmd) (*stdioServer, error) {
	p := &stdioServer{cmd: cmd, lines: make(chan []byte, 1024)}
	cmd.Stderr = &p.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.in = in
	go func() {
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				p.lines <- bytes.TrimSuffix(line, []byte("\n"))
			}
			if err != nil {
				close(p.lines)
				return
			}
		}
	}()
	return p, nil
}

// send writes one line.
func (p *stdioServer) send(line string) error {
	_, err := io.WriteString(p.in, line+"\n")
	return err
}

// stop closes its stdin and waits for it to exit, killing it after grace.
func (p *stdioServer) stop(grace time.Duration) {
	p.in.Close()
	testutil.WaitOrStop(p.cmd, grace)
}
