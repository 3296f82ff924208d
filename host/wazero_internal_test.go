package host

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/plugin"
)

// One instance keeps the request buffer toolerr_buffer gave and asks again
// only for a larger request: requests that shrink, grow past the buffer
// and shrink again all get the answers the native core gives.
func TestWazeroInstance_KeepsItsBufferAcrossSizes(t *testing.T) {
	ctx := context.Background()
	eng, err := newWazeroEngine(ctx, plugin.Wasm, DefaultMemoryLimitPages, "")
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	inst, err := eng.NewInstance(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close(ctx)
	w := inst.(*wazeroInstance)
	var sizes []uint32
	for i, n := range []int{10, 1, 20000, 5, 300000, 0, 300000, 7} {
		req := []byte(fmt.Sprintf(`{"code":"C%d","message":%q}`, i, "m"+strings.Repeat("&", n)))
		got, err := inst.Call(ctx, "tool_error", req)
		if err != nil {
			t.Fatalf("call %d (%d bytes): %v", i, len(req), err)
		}
		want, abiErr := plugin.Call("tool_error", req)
		if abiErr != nil {
			t.Fatal(abiErr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("call %d (%d bytes): wazero and native differ", i, len(req))
		}
		sizes = append(sizes, w.bufSize)
	}
	// The buffer was asked for three times: the first call, and the two
	// that outgrew it; the others reused it.
	asked := 0
	for i, s := range sizes {
		if i == 0 || s != sizes[i-1] {
			asked++
		}
	}
	if asked != 3 {
		t.Errorf("buffer sizes after each call %v: asked %d times, want 3", sizes, asked)
	}
}
