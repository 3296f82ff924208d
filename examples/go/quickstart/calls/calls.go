// Package calls reads examples/quickstart.json, the calls every quickstart
// server answers alike, and checks an answer against one of them. The Go
// quickstart's test and the e2e runner (tests/e2e) both use it.
package calls

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
)

// Call is one call of examples/quickstart.json and what its answer must be:
// one text block that is exactly Text, or starts with StartsWith, or whose
// JSON equals JSON (in any key order), with IsError.
type Call struct {
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	IsError    bool            `json:"isError"`
	Text       string          `json:"text"`
	StartsWith string          `json:"startsWith"`
	JSON       json.RawMessage `json:"json"`
}

// Load reads the calls of the file at path; a file without any is an error.
func Load(path string) ([]Call, error) {
	var spec struct{ Calls []Call }
	raw, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(raw, &spec)
	}
	if err == nil && len(spec.Calls) == 0 {
		err = fmt.Errorf("no calls")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return spec.Calls, nil
}

// Check returns what is wrong with an answer of texts and isError to c, or
// "" when it is the answer c expects.
func (c Call) Check(texts []string, isError bool) string {
	switch {
	case len(texts) != 1:
		return fmt.Sprintf("%d text blocks, want 1", len(texts))
	case isError != c.IsError:
		return fmt.Sprintf("isError %v, want %v", isError, c.IsError)
	case c.JSON != nil:
		var got, want any
		if json.Unmarshal([]byte(texts[0]), &got) != nil || json.Unmarshal(c.JSON, &want) != nil || !reflect.DeepEqual(got, want) {
			return "want the JSON " + string(c.JSON)
		}
	case c.Text != "":
		if texts[0] != c.Text {
			return fmt.Sprintf("want the text %q", c.Text)
		}
	case !strings.HasPrefix(texts[0], c.StartsWith):
		return fmt.Sprintf("want a text starting %q", c.StartsWith)
	}
	return ""
}
