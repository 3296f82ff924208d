package host_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
	"github.com/toolerr/toolerr/tests/vectors"
)

// TestVectors_Engines runs every vector through every engine, and through
// wazero's interpreter (the first tier of a start with an empty cache), and
// demands the output's exact bytes, or the expected error code and message.
func TestVectors_Engines(t *testing.T) {
	files := vectors.MustLoad(t, "../tests/vectors/v1")
	ctx := context.Background()
	// The interpreter runs the module several times slower than the
	// compiled engines: the heaviest vectors (a JSON Schema check refused
	// at its work budget, millions of steps) take seconds there, and on a
	// loaded machine they overran the default call timeout. What this
	// test checks is bytes, not time: a generous bound, so that a hang
	// still fails.
	interpreted, err := host.NewInterpreted(ctx, host.Options{MaxInstances: 1, CallTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer interpreted.Close(ctx)
	hosts := map[host.Engine]*host.Host{"wazero-interpreter": interpreted}
	names := []host.Engine{"wazero-interpreter"}
	for _, e := range host.Engines {
		hosts[e] = engines(t)[e]
		names = append(names, e)
	}
	total := 0
	for _, e := range names {
		h := hosts[e]
		passed := 0
		for _, f := range files {
			for _, c := range f.Cases {
				req, err := c.Request()
				if err != nil {
					t.Fatalf("%s/%s: %v", f.Export, c.Description, err)
				}
				got, err := h.Call(ctx, f.Export, req)
				if c.Error != nil {
					var abiErr *abi.Error
					if !errors.As(err, &abiErr) || abiErr.Code != c.Error.Code || abiErr.Message != c.Error.Message {
						t.Errorf("%s %s/%s:\n got %v (%s)\nwant error %s: %s", e, f.Export, c.Description, err, got, c.Error.Code, c.Error.Message)
						continue
					}
					passed++
					continue
				}
				want := c.Want()
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s %s/%s:\n got %s (%v)\nwant %s", e, f.Export, c.Description, got, err, want)
					continue
				}
				passed++
			}
		}
		t.Logf("%s: %d vectors passed", e, passed)
		total += passed
	}
	if total == 0 {
		t.Fatal("no vector ran")
	}
}
