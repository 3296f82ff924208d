// Package cargotarget tests tests/cargo-target.sh, the pool of Cargo target
// folders that builds of different checkouts share without waiting for each
// other: a second concurrent taker gets another slot, a slot is held while
// any child of its taker runs and is free again once they exit, a build that
// holds a slot does not take a second one, a user's CARGO_TARGET_DIR is kept,
// and a taker waits only when every slot is in use.
package cargotarget

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// taker runs bash with script (which sources or runs tests/cargo-target.sh)
// from the repository root, with HOME a fresh folder shared by the test's
// takers and none of the variables the script reads from the caller.
type taker struct {
	t    *testing.T
	home string
}

func newTaker(t *testing.T) *taker {
	t.Helper()
	if _, err := exec.LookPath("flock"); err != nil {
		t.Fatalf("tests/cargo-target.sh needs flock (util-linux): %v", err)
	}
	return &taker{t: t, home: t.TempDir()}
}

func (tk *taker) slot(n int) string {
	return filepath.Join(tk.home, ".cache", "toolerr", "cargo-target", "slot-"+strconv.Itoa(n))
}

func (tk *taker) command(ctx context.Context, script string, env ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = filepath.Join("..", "..")
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "HOME", "CARGO_TARGET_DIR", "TOOLERR_CARGO_TARGET_HELD", "TOOLERR_CARGO_SLOTS", "TOOLERR_CARGO_POLL":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "HOME="+tk.home)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// run runs script to its end and returns its stdout's first line and its stderr.
func (tk *taker) run(script string, env ...string) (string, string) {
	tk.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := tk.command(ctx, script, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tk.t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return line, stderr.String()
}

// holder is a taker that keeps its slot until release.
type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	dir   string
}

// hold starts script, which must print its CARGO_TARGET_DIR and then keep
// the slot until its stdin closes.
func (tk *taker) hold(script string, env ...string) *holder {
	tk.t.Helper()
	cmd := tk.command(context.Background(), script, env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tk.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tk.t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		tk.t.Fatal(err)
	}
	h := &holder{cmd: cmd, stdin: stdin}
	tk.t.Cleanup(h.release)
	line, err := readLine(stdout, 20*time.Second)
	if err != nil {
		tk.t.Fatalf("%s: %v", script, err)
	}
	h.dir = line
	return h
}

func (h *holder) release() {
	if h.stdin != nil {
		h.stdin.Close()
		h.stdin = nil
		h.cmd.Wait()
	}
}

func readLine(r io.Reader, timeout time.Duration) (string, error) {
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		ch <- res{strings.TrimSuffix(line, "\n"), err}
	}()
	select {
	case r := <-ch:
		return r.line, r.err
	case <-time.After(timeout):
		return "", context.DeadlineExceeded
	}
}

// The ways make test's scripts take a slot.
const (
	sourced = `source tests/cargo-target.sh && echo "$CARGO_TARGET_DIR"`
	// A sourcing script that keeps the slot until its stdin closes.
	sourcedHold = `source tests/cargo-target.sh && echo "$CARGO_TARGET_DIR" && read -r _`
	// make test's way: the whole command holds the slot.
	wrappedHold = `bash tests/cargo-target.sh bash -c 'echo "$CARGO_TARGET_DIR"; read -r _'`
)

func TestSecondConcurrentTakerGetsAnotherSlot(t *testing.T) {
	tk := newTaker(t)
	first := tk.hold(sourcedHold)
	if first.dir != tk.slot(0) {
		t.Fatalf("first taker: %s, want %s", first.dir, tk.slot(0))
	}
	dir, stderr := tk.run(sourced)
	if dir != tk.slot(1) {
		t.Fatalf("second taker while the first holds slot-0: %s, want %s", dir, tk.slot(1))
	}
	// The logs say which folder is used.
	if want := "cargo target: " + tk.slot(1) + " (slot 1 of 3, locked by this build"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not say %q", stderr, want)
	}
	// The second taker has exited, so slot-1 is free again.
	if dir, _ := tk.run(sourced); dir != tk.slot(1) {
		t.Errorf("third taker after the second exited: %s, want %s", dir, tk.slot(1))
	}
	// A wrapped command (make test's way) also skips the held slot.
	second := tk.hold(wrappedHold)
	if second.dir != tk.slot(1) {
		t.Errorf("wrapped taker while slot-0 is held: %s, want %s", second.dir, tk.slot(1))
	}
	if dir, _ := tk.run(sourced); dir != tk.slot(2) {
		t.Errorf("taker while slot-0 and slot-1 are held: %s, want %s", dir, tk.slot(2))
	}
	first.release()
	if dir, _ := tk.run(sourced); dir != tk.slot(0) {
		t.Errorf("taker after the first released slot-0: %s, want %s", dir, tk.slot(0))
	}
	second.release()
	if dir, _ := tk.run(sourced); dir != tk.slot(0) {
		t.Errorf("taker after every holder exited: %s, want %s", dir, tk.slot(0))
	}
}

// The lock is on a file descriptor that children inherit: cargo and rustc
// keep the slot after the shell that took it has exited, until they exit too.
func TestSlotHeldWhileAChildRuns(t *testing.T) {
	tk := newTaker(t)
	pidLine, _ := tk.run(`source tests/cargo-target.sh && { sleep 60 >/dev/null 2>&1 & echo $!; }`)
	pid, err := strconv.Atoi(pidLine)
	if err != nil {
		t.Fatalf("child pid %q: %v", pidLine, err)
	}
	child, _ := os.FindProcess(pid)
	t.Cleanup(func() { child.Signal(syscall.SIGKILL) })
	if dir, _ := tk.run(sourced); dir != tk.slot(1) {
		t.Fatalf("taker while the first taker's child runs: %s, want %s", dir, tk.slot(1))
	}
	child.Signal(syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for {
		dir, _ := tk.run(sourced)
		if dir == tk.slot(0) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot-0 still taken after the child was killed: got %s", dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Inside make test (which holds a slot), each phase's script uses that slot
// instead of taking a second one.
func TestNestedTakerKeepsTheBuildsSlot(t *testing.T) {
	tk := newTaker(t)
	dir, stderr := tk.run(`bash tests/cargo-target.sh bash -c 'source tests/cargo-target.sh && echo "$CARGO_TARGET_DIR"'`)
	if dir != tk.slot(0) {
		t.Fatalf("nested taker: %s, want %s", dir, tk.slot(0))
	}
	if want := "cargo target: " + tk.slot(0) + " (the slot this build holds)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not say %q", stderr, want)
	}
}

func TestUserCargoTargetDirKept(t *testing.T) {
	tk := newTaker(t)
	mine := filepath.Join(tk.home, "my-target")
	dir, stderr := tk.run(sourced, "CARGO_TARGET_DIR="+mine)
	if dir != mine {
		t.Fatalf("with CARGO_TARGET_DIR=%s: %s", mine, dir)
	}
	if want := "cargo target: " + mine + " (CARGO_TARGET_DIR, not locked by toolerr)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not say %q", stderr, want)
	}
	if _, err := os.Stat(filepath.Join(tk.home, ".cache")); !os.IsNotExist(err) {
		t.Errorf("the pool was touched although CARGO_TARGET_DIR is set: %v", err)
	}
}

// When every slot is in use a taker waits, and takes the first one freed.
func TestAllSlotsBusyWaits(t *testing.T) {
	tk := newTaker(t)
	env := []string{"TOOLERR_CARGO_SLOTS=1", "TOOLERR_CARGO_POLL=0.1"}
	first := tk.hold(sourcedHold, env...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	waiter := tk.command(ctx, sourced, env...)
	stderr, _ := waiter.StderrPipe()
	stdout, _ := waiter.StdoutPipe()
	if err := waiter.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := readLine(stderr, 10*time.Second)
	if err != nil || !strings.Contains(line, "all 1 slots") || !strings.Contains(line, "waiting") {
		t.Fatalf("waiter's stderr: %q, %v", line, err)
	}
	first.release()
	dir, err := readLine(stdout, 10*time.Second)
	if err != nil || dir != tk.slot(0) {
		t.Fatalf("waiter after the slot was freed: %q, %v", dir, err)
	}
	if err := waiter.Wait(); err != nil {
		t.Fatal(err)
	}
}
