package testutil

import (
	"testing"
	"time"
)

// WaitUntil polls cond every 20 ms until it holds, and fails the test
// (naming what it waited for) when it still does not after d.
func WaitUntil(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
	}
}
