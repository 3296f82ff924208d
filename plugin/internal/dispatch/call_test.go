package dispatch

import (
	"strings"
	"testing"

	"github.com/toolerr/toolerr/abi"
)

// TestCall_DepthScenario pins the wording of the depth error.
func TestCall_DepthScenario(t *testing.T) {
	for _, tc := range []struct{ name, input, want string }{
		{"too deep", `{"text":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`, "parse: request has nesting deeper than 256 levels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Call("parse", []byte(tc.input))
			if err == nil || err.Code != abi.CodeInvalidRequest || err.Message != tc.want {
				t.Errorf("got %v, want %s", err, tc.want)
			}
		})
	}
}
