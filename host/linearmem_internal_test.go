package host

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolerr/toolerr/abi"
)

// A Free while a call runs in the instance is done when the call leaves:
// the memory stays usable until then.
func TestLinearMemory_FreeWaitsForTheCall(t *testing.T) {
	var m *linearMemory
	lm := allocatorFor(&m).Allocate(65536, 4*65536)
	buf := lm.Reallocate(65536)
	if len(buf) != 65536 || m == nil {
		t.Fatalf("Reallocate gave %d bytes (memory recorded: %v)", len(buf), m != nil)
	}
	m.enter()
	lm.Free()
	buf[65535] = 1 // still mapped: a fault here would end the test binary
	if m.buf == nil {
		t.Fatal("the memory was released during a call")
	}
	m.leave()
	if m.buf != nil {
		t.Fatal("the memory was not released when the call left")
	}
}

// Growth keeps what the memory holds and never passes the maximum, on a
// reservation and on an ordinary slice alike.
func TestLinearMemory_Reallocate(t *testing.T) {
	for _, mapped := range []bool{true, false} {
		m := &linearMemory{max: 3 * 65536}
		if mapped {
			buf, ok := reserve(m.max)
			if !ok {
				t.Log("no reservation here")
				continue
			}
			m.buf, m.mmap = buf, true
		}
		a := m.Reallocate(65536)
		a[100] = 7
		b := m.Reallocate(3 * 65536)
		if len(b) != 3*65536 || b[100] != 7 || b[3*65536-1] != 0 {
			t.Errorf("mapped %v: grown to %d bytes, kept %d, new byte %d", mapped, len(b), b[100], b[3*65536-1])
		}
		if m.Reallocate(3*65536+1) != nil {
			t.Errorf("mapped %v: grew past the maximum", mapped)
		}
		m.Free()
	}
}

// Closing a wazero host while an abandoned call still runs in one of its
// instances does not take the memory from under the call: the call runs to
// its end, the process lives, and the engine closes once the instance is
// dropped.
func TestWazero_CloseDuringAnAbandonedCall(t *testing.T) {
	ctx := context.Background()
	h := newTestHost(t, Options{Engine: Wazero, MaxInstances: 2})
	heavy := []byte(`{"text":"<tool_error code='X'><message>m</message>` +
		strings.Repeat(`<detail key='v' k2='<detail key=' `, (abi.MaxRequestBytes-200)/34) + `"}`)
	callCtx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	_, err := h.Call(callCtx, "parse", heavy)
	var abiErr *abi.Error
	if err == nil {
		t.Skip("the heavy call finished within 30 ms")
	}
	if !errors.As(err, &abiErr) || abiErr.Code != abi.CodeTimeout {
		t.Fatalf("got %v, want TIMEOUT", err)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// The abandoned call ends in its goroutine and its instance is
	// discarded; the process must still be here to see it.
	deadline := time.Now().Add(20 * time.Second)
	for h.liveInstances() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := h.liveInstances(); n > 0 {
		t.Errorf("%d instances still live 20 s after the close", n)
	}
	// The last instance dropped closed the engine.
	h.mu.Lock()
	closed := h.engClosed
	h.mu.Unlock()
	if !closed {
		t.Error("the engine is still open after the last instance was dropped")
	}
}
