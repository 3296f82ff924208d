package host_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
	"github.com/toolerr/toolerr/plugin"
)

// hosts opens one Host per engine, shared by the tests of this package.
var (
	hostsOnce sync.Once
	hosts     map[host.Engine]*host.Host
	hostsErr  error
)

func engines(t testing.TB) map[host.Engine]*host.Host {
	t.Helper()
	hostsOnce.Do(func() {
		hosts = map[host.Engine]*host.Host{}
		for _, e := range host.Engines {
			h, err := host.New(context.Background(), host.Options{Engine: e})
			if err != nil {
				hostsErr = fmt.Errorf("%s: %w", e, err)
				return
			}
			hosts[e] = h
		}
	})
	if hostsErr != nil {
		t.Fatal(hostsErr)
	}
	return hosts
}

// onEachEngine runs f in a subtest per engine of es, each on a Host of its
// own made with opts (Engine set to that engine) and closed when f returns.
func onEachEngine(t *testing.T, es []host.Engine, opts host.Options, f func(t *testing.T, e host.Engine, h *host.Host)) {
	t.Helper()
	for _, e := range es {
		t.Run(string(e), func(t *testing.T) {
			opts := opts
			opts.Engine = e
			h, err := host.New(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close(context.Background())
			f(t, e, h)
		})
	}
}

func TestHost_SameBytesOnEveryEngine(t *testing.T) {
	requests := []struct{ export, request string }{
		{"tool_error", `{"code":"NOT_FOUND","message":"No invoice with that ID","suggestion":"List invoices first","availableActions":["billing.list_invoices"],"details":{"requestedId":"inv_9","n":1.5,"ok":true},"retryAfter":30}`},
		{"tool_error", `{"code":"DEPRECATED","message":"page_size <is> deprecated","severity":"warning"}`},
		{"simple_error", `{"message":"plain & simple"}`},
		{"required_field", `{"field":"id"}`},
		{"internal_error", `{"message":"boom","tool":"billing.export_invoices"}`},
		{"rate_limited", `{"max":3,"windowSeconds":60,"retryAfter":60,"key":"billing.pay_invoice"}`},
		{"server_busy", `{"tool":"t","active":4,"queued":10}`},
		{"escape", `{"text":"a<b>\"c\"&]]>","context":"attribute"}`},
		{"format_validation", `{"action":"a","issues":[{"code":"invalid_type","expected":"string","received":"number","path":["id"],"message":"Expected string, received number"}],"args":{"id":42}}`},
		{"parse", `{"text":"<tool_error code=\"X\"><message>m</message></tool_error>"}`},
		{"describe", `{}`},
	}
	hs := engines(t)
	ctx := context.Background()
	for _, tc := range requests {
		t.Run(tc.export, func(t *testing.T) {
			want, werr := plugin.Call(tc.export, []byte(tc.request))
			if werr != nil {
				t.Fatalf("native core: %v", werr)
			}
			for _, e := range host.Engines {
				got, err := hs[e].Call(ctx, tc.export, []byte(tc.request))
				if err != nil {
					t.Fatalf("%s: %v", e, err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s:\n got %s\nwant %s", e, got, want)
				}
			}
		})
	}
}

func TestHost_BadInputKeepsServing(t *testing.T) {
	cases := []struct {
		name, export, request, code, contains string
	}{
		{"malformed JSON", "tool_error", `{"code":"X",`, abi.CodeInvalidRequest, "not valid JSON"},
		{"not an object", "tool_error", `["X"]`, abi.CodeInvalidRequest, "must be a JSON object, got array"},
		{"wrong type", "tool_error", `{"code":"X","message":42}`, abi.CodeInvalidRequest, `"message" must be a string, got number`},
		{"missing message", "tool_error", `{"code":"X"}`, abi.CodeInvalidRequest, `"message" is required`},
		{"unknown severity", "tool_error", `{"code":"X","message":"m","severity":"fatal"}`, abi.CodeInvalidRequest, `"severity" must be one of`},
		{"object detail", "tool_error", `{"code":"X","message":"m","details":{"k":{"a":1}}}`, abi.CodeInvalidRequest, `"details.k" must be a string, number or boolean, got object`},
		{"empty code", "tool_error", `{"code":"","message":"m"}`, abi.CodeInvalidRequest, `"code" must not be empty`},
		{"unknown field", "tool_error", `{"code":"X","message":"m","sugestion":"s"}`, abi.CodeInvalidRequest, `unknown field "sugestion"`},
		{"unknown export", "nope", `{}`, abi.CodeInvalidRequest, `unknown export "nope"`},
		{"too deep", "parse", strings.Repeat("[", 300) + strings.Repeat("]", 300), abi.CodeInvalidRequest, "nesting deeper than"},
		{"too large", "parse", `{"text":"` + strings.Repeat("a", abi.MaxRequestBytes) + `"}`, abi.CodeRequestTooLarge, "over the limit"},
	}
	ctx := context.Background()
	for e, h := range engines(t) {
		for _, tc := range cases {
			t.Run(string(e)+"/"+tc.name, func(t *testing.T) {
				_, err := h.Call(ctx, tc.export, []byte(tc.request))
				var abiErr *abi.Error
				if !errors.As(err, &abiErr) {
					t.Fatalf("got %v, want an *abi.Error", err)
				}
				if abiErr.Code != tc.code || !strings.Contains(abiErr.Message, tc.contains) {
					t.Errorf("got %s %q, want %s containing %q", abiErr.Code, abiErr.Message, tc.code, tc.contains)
				}
				if _, err := h.Call(ctx, "required_field", []byte(`{"field":"id"}`)); err != nil {
					t.Errorf("next call failed: %v", err)
				}
			})
		}
	}
}

func TestHost_RefusesTamperedModule(t *testing.T) {
	tampered := bytes.Clone(plugin.Wasm)
	tampered[len(tampered)/2] ^= 1
	_, err := host.New(context.Background(), host.Options{Wasm: tampered, SHA256: plugin.SHA256})
	if err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("got %v, want a sha256 mismatch", err)
	}
	if _, err := host.New(context.Background(), host.Options{Wasm: plugin.Wasm}); err == nil {
		t.Fatal("custom bytes without a digest were accepted")
	}
}

func TestHost_ConcurrentCallsMatchNative(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, []host.Engine{host.Wazero, host.Extism}, host.Options{MaxInstances: 4}, func(t *testing.T, e host.Engine, h *host.Host) {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; i < 100; i++ {
					req := fmt.Sprintf(`{"code":"C%d","message":"call %d of %d","details":{"i":%d}}`, g, i, g, i)
					want, _ := plugin.Call("tool_error", []byte(req))
					got, err := h.Call(ctx, "tool_error", []byte(req))
					if err != nil || !bytes.Equal(got, want) {
						errs <- fmt.Errorf("goroutine %d call %d: %v\n got %s\nwant %s", g, i, err, got, want)
						return
					}
				}
			}(g)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if n := host.LiveInstances(h); n > 4 {
			t.Errorf("%d live instances, want at most 4", n)
		}
	})
}

func TestHost_CancelledCallIsTypedAndDiscarded(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, host.Engines, host.Options{MaxInstances: 1}, func(t *testing.T, e host.Engine, h *host.Host) {
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := h.Call(cancelled, "describe", []byte(`{}`))
		var abiErr *abi.Error
		if !errors.As(err, &abiErr) || abiErr.Code != abi.CodeCancelled || !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want CANCELLED wrapping context.Canceled", err)
		}
		expired, cancel2 := context.WithDeadline(ctx, time.Now().Add(-time.Second))
		defer cancel2()
		_, err = h.Call(expired, "describe", []byte(`{}`))
		if !errors.As(err, &abiErr) || abiErr.Code != abi.CodeTimeout {
			t.Fatalf("got %v, want TIMEOUT", err)
		}
		if _, err := h.Call(ctx, "describe", []byte(`{}`)); err != nil {
			t.Fatalf("next call failed: %v", err)
		}
		if n := host.LiveInstances(h); n != 1 {
			t.Errorf("%d live instances, want 1", n)
		}
	})
}

func TestHost_TrapDiscardsInstance(t *testing.T) {
	ctx := context.Background()
	for _, e := range []host.Engine{host.Wazero, host.Extism} {
		t.Run(string(e), func(t *testing.T) {
			// Just enough memory to start, too little for a 3 MiB
			// request: the module runs out and traps.
			h, err := host.New(ctx, host.Options{Engine: e, MaxInstances: 1, MemoryLimitPages: startablePages(t, e)})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close(ctx)
			big := `{"text":"` + strings.Repeat("<a>", 1<<20) + `"}`
			_, err = h.Call(ctx, "parse", []byte(big))
			var abiErr *abi.Error
			if !errors.As(err, &abiErr) || (abiErr.Code != abi.CodeTrap && abiErr.Code != abi.CodeInternal) {
				t.Fatalf("got %v, want TRAP", err)
			}
			if testing.Verbose() {
				t.Logf("trap reported as %v", err)
			}
			for i := 0; i < 3; i++ {
				if _, err := h.Call(ctx, "required_field", []byte(`{"field":"id"}`)); err != nil {
					t.Fatalf("call %d after the trap failed: %v", i, err)
				}
			}
			if n := host.LiveInstances(h); n != 1 {
				t.Errorf("%d live instances, want 1", n)
			}
		})
	}
}

func TestHost_ClosedHostRefusesCalls(t *testing.T) {
	ctx := context.Background()
	h, err := host.New(ctx, host.Options{Engine: host.Native})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Call(ctx, "describe", []byte(`{}`)); !errors.Is(err, host.ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
}

func TestHost_ABIVersion(t *testing.T) {
	for e, h := range engines(t) {
		d, err := h.Describe(context.Background())
		if err != nil {
			t.Fatal(e, err)
		}
		if d.ABIVersion != abi.Version || len(d.Exports) != len(abi.Exports) {
			t.Errorf("%s: describe = %+v", e, d)
		}
	}
}

// startablePages finds, 8 pages at a time, the smallest memory cap under
// which the engine's instances start and answer a small call.
func startablePages(t *testing.T, e host.Engine) uint32 {
	t.Helper()
	ctx := context.Background()
	cache := t.TempDir()
	for pages := uint32(64); pages < 1024; pages += 8 {
		h, err := host.New(ctx, host.Options{Engine: e, MaxInstances: 1, MemoryLimitPages: pages, CompilationCacheDir: cache})
		if err != nil {
			continue
		}
		h.Close(ctx)
		return pages + 8
	}
	t.Fatal("no memory cap under 1024 pages lets the module start")
	return 0
}

// TestHost_DefaultCompilationCache: with no directory named, a Host keeps
// wazero's compiled code under the user cache directory, and
// NoCompilationCache keeps nothing there.
func TestHost_DefaultCompilationCache(t *testing.T) {
	ctx := context.Background()
	for _, e := range []host.Engine{host.Wazero, host.Extism} {
		t.Run(string(e), func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", home)
			t.Setenv("HOME", home)
			want := filepath.Join(home, "toolerr", "wazero")
			if got := host.DefaultCompilationCacheDir(); got != want {
				t.Fatalf("DefaultCompilationCacheDir() = %q, want %q", got, want)
			}
			h, err := host.New(ctx, host.Options{Engine: e, NoCompilationCache: true})
			if err != nil {
				t.Fatal(err)
			}
			h.Close(ctx)
			if _, err := os.Stat(want); err == nil {
				t.Fatalf("NoCompilationCache: %s was made", want)
			}
			h, err = host.New(ctx, host.Options{Engine: e})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.Call(ctx, "required_field", []byte(`{"field":"id"}`)); err != nil {
				t.Fatal(err)
			}
			h.Close(ctx)
			entries, err := os.ReadDir(want)
			if err != nil || len(entries) == 0 {
				t.Fatalf("the default cache %s holds nothing after a Host compiled the module (%v)", want, err)
			}
		})
	}
}
