package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestCLI_ReadmeExamples runs every line of the README's CLI block as
// written, from the repository root, with this package's binary standing
// in for `go run ./host/cmd/toolerr` and nothing on stdin. A line exits 0
// unless its comment says which status it exits with.
func TestCLI_ReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "\n## CLI\n\n```sh\n")
	if block, _, ok = strings.Cut(block, "```"); !ok {
		t.Fatal("README.md has no ```sh block under ## CLI")
	}
	toolerr, _ := binaries(t)
	exits := regexp.MustCompile(`# exits (\d+)`)
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) < 5 {
		t.Fatalf("the CLI block has %d lines", len(lines))
	}
	for _, line := range lines {
		t.Run(line, func(t *testing.T) {
			want := "0"
			if m := exits.FindStringSubmatch(line); m != nil {
				want = m[1]
			}
			cmd := exec.Command("bash", "-c", strings.ReplaceAll(line, "go run ./host/cmd/toolerr", toolerr))
			cmd.Dir = "../../.."
			var out, errOut bytes.Buffer
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &out, &errOut
			cmd.WaitDelay = time.Minute
			err := cmd.Run()
			got := "0"
			if err != nil {
				var exitErr *exec.ExitError
				if !errors.As(err, &exitErr) {
					t.Fatal(err)
				}
				got = strings.TrimPrefix(exitErr.ProcessState.String(), "exit status ")
			}
			if got != want || out.Len() == 0 && !strings.Contains(line, "proxy") {
				t.Errorf("exit %s, want %s; stdout %d bytes\nstderr: %s", got, want, out.Len(), errOut.String())
			}
		})
	}
}
