package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// lock reads MCP tools (an array, a tools/list result or a lockfile) on
// stdin and prints their lockfile.
func lock(ctx context.Context, h *host.Host, stdin io.Reader, stdout, stderr io.Writer) int {
	tools, err := io.ReadAll(io.LimitReader(stdin, abi.MaxRequestBytes+1))
	if err != nil {
		fmt.Fprintln(stderr, "toolerr lock: reading stdin:", err)
		return 1
	}
	out, err := h.ContractLock(ctx, tools)
	if err != nil {
		return refused(stderr, err)
	}
	var pretty strings.Builder
	if err := indentJSON(&pretty, out); err != nil {
		fmt.Fprintln(stderr, "toolerr lock:", err)
		return 1
	}
	fmt.Fprintln(stdout, pretty.String())
	return 0
}

// diffResult is contract_diff's response.
type diffResult struct {
	Deltas              []abi.Delta `json:"deltas"`
	MaxSeverity         *string     `json:"maxSeverity"`
	BackwardsCompatible bool        `json:"backwardsCompatible"`
}

// diff compares two contracts (files holding a lockfile, a tools array or
// a tools/list result) and exits 1 when a change is BREAKING.
func diff(ctx context.Context, h *host.Host, oldPath, newPath string, asJSON bool, stdout, stderr io.Writer) int {
	before, err := os.ReadFile(oldPath)
	if err != nil {
		fmt.Fprintln(stderr, "toolerr diff:", err)
		return 1
	}
	after, err := os.ReadFile(newPath)
	if err != nil {
		fmt.Fprintln(stderr, "toolerr diff:", err)
		return 1
	}
	out, err := h.ContractDiffJSON(ctx, before, after)
	if err != nil {
		return refused(stderr, err)
	}
	var res diffResult
	if err := json.Unmarshal(out, &res); err != nil {
		fmt.Fprintln(stderr, "toolerr diff: undecodable response:", err)
		return 1
	}
	if asJSON {
		fmt.Fprintf(stdout, "%s\n", out)
	} else {
		printDeltas(stdout, res)
	}
	if !res.BackwardsCompatible {
		return 1
	}
	return 0
}

func printDeltas(w io.Writer, res diffResult) {
	if len(res.Deltas) == 0 {
		fmt.Fprintln(w, "no changes")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SEVERITY\tFIELD\tCHANGE\tBEFORE\tAFTER")
	counts := map[string]int{}
	show := func(s *string) string {
		if s == nil {
			return "-"
		}
		if len(*s) > 40 {
			return (*s)[:37] + "..."
		}
		return *s
	}
	for _, d := range res.Deltas {
		counts[d.Severity]++
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Severity, d.Field, d.Description, show(d.Before), show(d.After))
	}
	tw.Flush()
	verdict := "backwards compatible"
	if !res.BackwardsCompatible {
		verdict = "NOT backwards compatible"
	}
	fmt.Fprintf(w, "\n%d changes: %d breaking, %d risky, %d safe, %d cosmetic; %s\n",
		len(res.Deltas), counts["BREAKING"], counts["RISKY"], counts["SAFE"], counts["COSMETIC"], verdict)
}

func indentJSON(b *strings.Builder, raw []byte) error {
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return err
	}
	b.Write(out.Bytes())
	return nil
}
