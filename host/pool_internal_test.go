package host

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolerr/toolerr/abi"
)

// TestPool_TakesTheInstanceReleasedLast: of the idle instances, a call gets
// the one used last (its memory still in the CPU's caches), not the one
// idle longest.
func TestPool_TakesTheInstanceReleasedLast(t *testing.T) {
	h := newTestHost(t, Options{Engine: Wazero, MaxInstances: 2})
	a, b := mustAcquire(t, h), mustAcquire(t, h)
	h.release(a)
	h.release(b)
	for range 3 {
		got := mustAcquire(t, h)
		if got != b {
			t.Fatal("got the instance idle longest, want the one released last")
		}
		h.release(got)
	}
	if n := h.liveInstances(); n != 2 {
		t.Fatalf("live instances %d, want 2", n)
	}
}

// TestPool_WaitersGetReleasedInstances: with every instance in use, calls
// wait; each release hands one on, a cancelled wait ends with CANCELLED, and
// Close ends the waits still pending with ErrClosed.
func TestPool_WaitersGetReleasedInstances(t *testing.T) {
	ctx := context.Background()
	h := newTestHost(t, Options{Engine: Wazero, MaxInstances: 1})
	held := mustAcquire(t, h)
	got := make(chan error, 3)
	for range 3 {
		go func() {
			inst, err := h.acquire(ctx)
			if err == nil {
				h.release(inst)
			}
			got <- err
		}()
	}
	time.Sleep(50 * time.Millisecond)
	h.release(held)
	for range 3 {
		select {
		case err := <-got:
			if err != nil {
				t.Fatalf("a waiter: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a waiter was never handed the instance")
		}
	}

	held = mustAcquire(t, h)
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	var abiErr *abi.Error
	if _, err := h.acquire(cctx); !errors.As(err, &abiErr) || abiErr.Code != abi.CodeCancelled {
		t.Fatalf("a cancelled wait: %v, want CANCELLED", err)
	}

	for range 2 {
		go func() {
			_, err := h.acquire(ctx)
			got <- err
		}()
	}
	time.Sleep(50 * time.Millisecond)
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case err := <-got:
			if !errors.Is(err, ErrClosed) {
				t.Fatalf("a wait at Close: %v, want ErrClosed", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a waiter was not woken by Close")
		}
	}
	h.release(held) // after Close: discarded
	if n := h.liveInstances(); n != 0 {
		t.Fatalf("live instances %d after Close, want 0", n)
	}
}

// newTestHost is New for this package's tests: a failure ends the test,
// and the host is closed when the test ends (Close again is harmless).
func newTestHost(t *testing.T, opts Options) *Host {
	t.Helper()
	h, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// mustAcquire takes an instance from h's pool; a failure ends the test.
func mustAcquire(t *testing.T, h *Host) Instance {
	t.Helper()
	inst, err := h.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return inst
}
