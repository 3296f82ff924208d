package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"

	"github.com/toolerr/toolerr/tests/hostile"
)

// framingFile is tests/conformance/framing.json: lines that pin the batch
// commands' framing (what a line is, whitespace, blank lines, BOMs, CR,
// invalid UTF-8, repeated keys, the request text passed through), and lines
// sent many times over that must get one answer every time.
type framingFile struct {
	Comment  string        `json:"comment"`
	Lines    []framingLine `json:"lines"`
	Repeated []framingLine `json:"repeated"`
}

// framingLine is one line (a string, {"base64"} or {"parts"}, as in the
// hostile corpus) and its answer: nil for none, else the exact response or
// the error's code and message.
type framingLine struct {
	Description string         `json:"description"`
	Line        hostile.Bytes  `json:"line"`
	Times       int            `json:"times,omitempty"`
	Answer      *framingAnswer `json:"answer"`
}

type framingAnswer struct {
	Response *string `json:"response,omitempty"`
	Error    *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// check compares one answered line with a.
func (a *framingAnswer) check(got []byte) string {
	if a.Response != nil {
		if string(got) != *a.Response {
			return fmt.Sprintf("got %.300s\n want %.300s", got, *a.Response)
		}
		return ""
	}
	code, message, ok := errorLine(got)
	if !ok || code != a.Error.Code || message != a.Error.Message {
		return fmt.Sprintf("got %.300s\n want error %s: %s", got, a.Error.Code, a.Error.Message)
	}
	return ""
}

// runFraming sends the framing lines as one stream (joined by LF, the last
// with none), then the repeated lines as another, and counts the answers
// that match: passed of total. mismatch describes the first that does not.
func runFraming(command, env []string, f framingFile) (passed, total int, mismatch string, err error) {
	stream := func(lines []framingLine) ([]byte, []framingLine, error) {
		var in bytes.Buffer
		var answered []framingLine
		for i, l := range lines {
			b, err := l.Line.Build()
			if err != nil {
				return nil, nil, fmt.Errorf("framing %q: %w", l.Description, err)
			}
			for n := 0; n < max(l.Times, 1); n++ {
				if in.Len() > 0 || i > 0 || n > 0 {
					in.WriteByte('\n')
				}
				in.Write(b)
				if l.Answer != nil {
					answered = append(answered, l)
				}
			}
		}
		return in.Bytes(), answered, nil
	}
	for _, lines := range [][]framingLine{f.Lines, f.Repeated} {
		in, answered, err := stream(lines)
		if err != nil {
			return passed, total, mismatch, err
		}
		total += len(answered)
		cmd := exec.Command(command[0], command[1:]...)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(in)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return passed, total, mismatch, fmt.Errorf("%v: %v\n%s", command, err, tail(stderr.String()))
		}
		sc := bufio.NewScanner(&stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		got := 0
		for _, l := range answered {
			if !sc.Scan() {
				break
			}
			got++
			if problem := l.Answer.check(sc.Bytes()); problem != "" {
				if mismatch == "" {
					mismatch = fmt.Sprintf("framing %q: %s", l.Description, problem)
				}
				continue
			}
			passed++
		}
		extra := 0
		for sc.Scan() {
			extra++
		}
		if (got < len(answered) || extra > 0) && mismatch == "" {
			mismatch = fmt.Sprintf("framing: %d answer lines, want %d", got+extra, len(answered))
		}
	}
	return passed, total, mismatch, nil
}
