package hostile_test

import (
	"testing"

	"github.com/toolerr/toolerr/tests/hostile"
)

// TestCorpus_Lint loads corpus.json (which checks every case: a known
// export, one outcome, known codes, requests and responses that build to
// their stated size) and builds the next call.
func TestCorpus_Lint(t *testing.T) {
	c := hostile.MustLoad(t, "corpus.json")
	if _, err := c.Next.Request.Build(); err != nil {
		t.Errorf("next request: %v", err)
	}
	if _, err := c.Next.Response.Build(); err != nil {
		t.Errorf("next response: %v", err)
	}
	t.Logf("%d hostile cases", len(c.Cases))
}
