package relay

import (
	"bytes"
	"io"
	"os"
	"syscall"
	"testing"
)

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	flags, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFL, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	return flags&syscall.O_NONBLOCK != 0
}

// closeAll closes files when the test ends (those closed before then
// included: os.File's Close is safe to call twice).
func closeAll(t *testing.T, files ...*os.File) {
	t.Cleanup(func() {
		for _, f := range files {
			f.Close()
		}
	})
}

// A pipe given as the client's stdin and stdout is read and written in
// the poller, messages whole in both directions, more than the pipe holds
// at once included; Close sets both ends back to blocking mode.
func TestStdio_PipesAreRawFilesUntilClose(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// Every end is closed through its os.File, never by its number: a file
	// whose number was closed behind its back closes that number again when
	// it is collected, by then another test's socket (a listener of the
	// HTTP tests once: connections refused and cut at random).
	closeAll(t, inR, inW, outR, outW)
	// Blocking, as a process finds its stdin and stdout.
	for _, f := range []*os.File{inR, outW} {
		f.Fd()
	}
	c := Stdio(inR, outW)
	l := c.(*lines)
	if len(l.restore) != 2 {
		t.Fatalf("%d ends made raw, want 2", len(l.restore))
	}
	big := bytes.Repeat([]byte("x"), 300<<10) // past a pipe's 64 KiB
	go func() {
		inW.Write([]byte(`{"a":1}` + "\n"))
		inW.Write(append(append([]byte(`"`), big...), '"', '\n'))
		inW.Close()
	}()
	msg, size, err := c.Read()
	if err != nil || string(msg) != `{"a":1}` || size != 7 {
		t.Fatalf("read %q %d %v", msg, size, err)
	}
	msg, _, err = c.Read()
	if err != nil || len(msg) != len(big)+2 {
		t.Fatalf("read %d bytes, %v; want %d", len(msg), err, len(big)+2)
	}
	if _, _, err := c.Read(); err != io.EOF {
		t.Fatalf("after the writer closed: %v, want io.EOF", err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(outR)
		got <- b
	}()
	if err := c.Write(big); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if nonblocking(t, outW) {
		t.Error("stdout is still non-blocking after Close")
	}
	outW.Close() // the client's end of stdout: now it reads the end
	if b := <-got; len(b) != len(big)+1 {
		t.Fatalf("the client read %d bytes, want %d", len(b), len(big)+1)
	}
}

// Any other file is left as it is: a regular file, and stdout when it is
// the pipe stderr writes to (a child that writes on that stderr must not
// find it non-blocking).
func TestPollable_LeavesOtherFilesAlone(t *testing.T) {
	regular, err := os.CreateTemp(t.TempDir(), "regular")
	if err != nil {
		t.Fatal(err)
	}
	closeAll(t, regular)
	if r, _ := pollable(regular, nil); r != nil {
		t.Error("a regular file was made raw")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	closeAll(t, r, w)
	w.Fd()
	if r, _ := pollable(w, w); r != nil {
		t.Error("stdout shared with stderr was made raw")
	}
	if nonblocking(t, w) {
		t.Error("stdout shared with stderr was made non-blocking")
	}
}
