// Package testutil holds the helpers that the Go tests and test programs
// of several packages share (host, host/relay, host/cmd/toolerr, tests/...):
// a log buffer a process writes while the test reads it, stopping a child
// process, reading the test data's JSON files strictly, and calling a tool
// with the Go SDK's client.
package testutil

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// DecodeStrict decodes data, one JSON value, into v: a field v does not
// have is an error, and so is anything after the value.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the top-level value")
	}
	return nil
}

// ReadJSONFile reads the JSON file at path into v with DecodeStrict; an
// error names the file.
func ReadJSONFile(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := DecodeStrict(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// CallText calls tool with args (JSON text) on cs and returns the text of
// its answer, which must be one text block, and isError; an error of the
// call itself fails the test.
func CallText(t testing.TB, cs *mcp.ClientSession, tool, args string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s %s: %d content blocks", tool, args, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s %s: a %T block", tool, args, res.Content[0])
	}
	return text.Text, res.IsError
}
