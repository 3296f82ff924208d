package testutil

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestDecodeStrict(t *testing.T) {
	type doc struct {
		A int `json:"a"`
	}
	for _, c := range []struct {
		in, err string
	}{
		{`{"a":1}`, ""},
		{" {\"a\":1}\n", ""},
		{`{"a":1,"b":2}`, `unknown field "b"`},
		{`{"a":1} {}`, "data after the top-level value"},
		{`{"a":1} x`, "data after the top-level value"},
		{`{"a":`, "unexpected EOF"},
	} {
		var d doc
		err := DecodeStrict([]byte(c.in), &d)
		if c.err == "" && (err != nil || d.A != 1) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q: %v, %+v; want %q", c.in, err, d, c.err)
		}
	}
}

func TestWaitOrStop(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	WaitOrStop(cmd, 50*time.Millisecond)
	if cmd.ProcessState == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("not killed: %v after %v", cmd.ProcessState, time.Since(start))
	}
	cmd = exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	WaitOrStop(cmd, time.Minute)
	if !cmd.ProcessState.Success() {
		t.Fatalf("a process that exits on its own: %v", cmd.ProcessState)
	}
}

func TestSyncBuffer(t *testing.T) {
	var b SyncBuffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			b.Write([]byte("x"))
		}
	}()
	for range 100 {
		_ = b.String()
	}
	<-done
	if b.String() != strings.Repeat("x", 100) {
		t.Fatalf("%q", b.String())
	}
}

func TestWaitUntil(t *testing.T) {
	n := 0
	WaitUntil(t, "the third poll", time.Minute, func() bool { n++; return n == 3 })
	if n != 3 {
		t.Fatalf("cond called %d times, want 3", n)
	}
}
