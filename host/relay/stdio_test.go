package relay_test

import (
	"bytes"
	"errors"
	"io"
	"strconv"
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

// TestCommand_AnswersTooLong: a server's answer longer than MaxLineBytes
// is a *LostError for its length when its first or last bytes name its id
// (the last ones kept across the cut, however little is past it), a
// request of the server a *CutRequestError; any other long line is
// returned cut, and the lines after it are whole.
func TestCommand_AnswersTooLong(t *testing.T) {
	// x N: N bytes of x; the first line's id is written last and stands
	// partly before the cut (10 bytes past it).
	script := `x() { head -c "$1" /dev/zero | tr '\0' x; }
		printf '{"result":{"text":"'; x $((` + strconv.Itoa(relay.MaxLineBytes) + ` - 25)); printf '"},"id":"first"}\n'
		printf '{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"'; x ` + strconv.Itoa(relay.MaxLineBytes) + `; printf '"}}\n'
		printf '{"method":"notifications/message","params":{"data":"'; x ` + strconv.Itoa(relay.MaxLineBytes) + `; printf '"}}\n'
		printf '{"jsonrpc":"2.0","id":"r1","method":"sampling/createMessage","params":{"x":"'; x ` + strconv.Itoa(relay.MaxLineBytes) + `; printf '"}}\n'
		printf '{"jsonrpc":"2.0","id":3,"result":{}}\n'`
	s, err := relay.Command("sh", []string{"-c", script}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(time.Second)
	for _, want := range []string{`"first"`, `2`} {
		_, _, err := s.Read()
		var lost *relay.LostError
		if !errors.As(err, &lost) || string(lost.ID) != want || !lost.TooLarge {
			t.Fatalf("Read: %v, want the answer to %s lost for its length", err, want)
		}
	}
	if msg, size, err := s.Read(); err != nil || len(msg) != relay.MaxLineBytes || size != relay.MaxLineBytes+55 {
		t.Errorf("the long notification: %d of %d bytes, %v", len(msg), size, err)
	}
	var cut *relay.CutRequestError
	if _, _, err := s.Read(); !errors.As(err, &cut) || string(cut.ID) != `"r1"` {
		t.Errorf("the long request: %v", err)
	}
	if msg, _, err := s.Read(); err != nil || string(msg) != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("the next line: %.80q %v", msg, err)
	}
	if _, _, err := s.Read(); err != io.EOF {
		t.Errorf("at the end: %v", err)
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
