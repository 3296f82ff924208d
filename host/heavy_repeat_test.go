package host_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/toolerr/toolerr/host"
	"github.com/toolerr/toolerr/tests/vectors"
)

// TestHeavySmallRequestsInARow sends one instance the same small
// contract_diff, refused at its work budget, again and again, under a
// memory limit of 2048 pages, on wazero and on Extism: every answer is the
// native core's. The module collects only between calls, and such a call
// leaves megabytes of garbage from an 18 KB request; its memory grew past
// 1024 pages after a few of them and, unchecked (hosts once asked only
// after a request or response over 64 KiB), on to the limit, where a call
// that needed more trapped (call 31 on wazero, 36 on Extism). The host
// policy retires the instance first: wazero reads its memory after every
// call, Extism asks after a call that ran MemoryCheckTime or longer.
func TestHeavySmallRequestsInARow(t *testing.T) {
	ctx := context.Background()
	req := heavyDiffRequest(t)
	if len(req) > host.MemoryCheckBytes {
		t.Fatalf("the request is %d bytes: it must be under MemoryCheckBytes to test the small-call check", len(req))
	}
	native, err := host.New(ctx, host.Options{Engine: host.Native})
	if err != nil {
		t.Fatal(err)
	}
	defer native.Close(ctx)
	want, wantErr := native.Call(ctx, "contract_diff", req)
	if wantErr == nil {
		t.Fatalf("the native core answered %.200s; the test needs a diff over its budget", want)
	}
	for _, engine := range []host.Engine{host.Wazero, host.Extism} {
		t.Run(fmt.Sprint(engine), func(t *testing.T) {
			h, err := host.New(ctx, host.Options{Engine: engine, MaxInstances: 1, MemoryLimitPages: 2048, CallTimeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close(ctx)
			for i := range 40 {
				got, gotErr := h.Call(ctx, "contract_diff", req)
				if !bytes.Equal(got, want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Fatalf("call %d: got %.200s, %.300v; want %.300v (memory pages now %v)", i+1, got, gotErr, wantErr, h.MemoryPages(ctx))
				}
				if pages := h.MemoryPages(ctx); len(pages) == 1 && pages[0] > host.RetireMemoryPages {
					t.Fatalf("call %d: an instance of %d pages was kept (over RetireMemoryPages, %d)", i+1, pages[0], host.RetireMemoryPages)
				}
			}
		})
	}
}

// heavyDiffRequest is the request of the contract_diff vector every host
// sends forty times in a row (an 18 KB request refused at its work budget
// after allocating several megabytes inside the module).
func heavyDiffRequest(t *testing.T) []byte {
	t.Helper()
	const wanted = "error a long string among the shared subschemas: refused at the budget after megabytes of work (hosts send it forty times in a row)"
	for _, f := range vectors.MustLoad(t, "../tests/vectors/v1") {
		for _, c := range f.Cases {
			if f.Export == "contract_diff" && c.Description == wanted {
				raw, err := c.Request()
				if err != nil {
					t.Fatal(err)
				}
				return raw
			}
		}
	}
	t.Fatalf("no contract_diff vector %q", wanted)
	return nil
}
