package relay_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/toolerr/toolerr/host/relay"
)

// TestCommand_StopsAServerThatIgnoresItsInput: a server that reads
// nothing and never ends is stopped by SIGTERM once its grace is over.
func TestCommand_StopsAServerThatIgnoresItsInput(t *testing.T) {
	s, err := relay.Command("sleep", []string{"30"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s.Stop(200 * time.Millisecond)
	if status := s.Wait(); status != 128+15 {
		t.Errorf("status %d, want 143 (SIGTERM)", status)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopping took %v", took)
	}
}

// TestCommand_ReadsWhatItsServerWroteBeforeItEnded: lines a server wrote
// just before it ended are read after it has ended; a process it left
// behind that keeps its output open does not keep the output from ending.
func TestCommand_ReadsWhatItsServerWroteBeforeItEnded(t *testing.T) {
	s, err := relay.Command("sh", []string{"-c", `printf '{"id":1,"result":{}}\n{"id":2,"result":{}}\n'`}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // it has ended, nothing read yet
	for _, want := range []string{`{"id":1,"result":{}}`, `{"id":2,"result":{}}`} {
		if msg, _, err := s.Read(); err != nil || string(msg) != want {
			t.Fatalf("Read = %q %v, want %s", msg, err, want)
		}
	}
	if _, _, err := s.Read(); err != io.EOF {
		t.Errorf("at the end: %v", err)
	}
	if status := s.Wait(); status != 0 {
		t.Errorf("status %d", status)
	}

	s, err = relay.Command("sh", []string{"-c", `sleep 20 & printf '{"id":1,"result":{}}\n'`}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if msg, _, err := s.Read(); err != nil || string(msg) != `{"id":1,"result":{}}` {
		t.Fatalf("Read = %q %v", msg, err)
	}
	if _, _, err := s.Read(); err != io.EOF { // after the grace
		t.Errorf("at the end: %v", err)
	}
	s.Wait()
}

// TestStdio_Lines: one message a line, the line feed dropped, a last line
// without one read too, and a line longer than the transport keeps cut
// with its length.
func TestStdio_Lines(t *testing.T) {
	long := strings.Repeat("x", relay.MaxClientLineBytes+10)
	var out bytes.Buffer
	c := relay.Stdio(strings.NewReader("{\"a\":1}\n\n"+long+"\nlast"), &out)
	for _, want := range []struct {
		msg  string
		size int
	}{{`{"a":1}`, 7}, {"", 0}, {long[:relay.MaxClientLineBytes], len(long)}, {"last", 4}} {
		msg, size, err := c.Read()
		if err != nil || string(msg) != want.msg || size != want.size {
			t.Fatalf("Read = %.20q %d %v, want %.20q %d", msg, size, err, want.msg, want.size)
		}
	}
	if _, _, err := c.Read(); err != io.EOF {
		t.Errorf("at the end: %v", err)
	}
	c.Write([]byte(`{"b":2}`))
	if out.String() != "{\"b\":2}\n" {
		t.Errorf("wrote %q", out.String())
	}
}
