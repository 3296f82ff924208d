package main

import "fmt"

// Stats sums one side of a path's results.
type Stats struct {
	Cases        int // cases played
	Rejected     int // cases the server refused: what a text has to describe
	Repaired     int // of those, repaired within maxRounds
	FirstTry     int // of those, repaired by the first repaired call
	Named        int
	Stated       int
	Claims       int // "You sent" statements
	FalseClaims  int
	Tokens       int // over the rejected cases
	Issues       int
	Accepted     int // cases the server let through
	ValidRefused int
}

func (s *Stats) add(c *Case, side Side) {
	s.Cases++
	if side.Accepted {
		s.Accepted++
		return
	}
	s.Rejected++
	if side.Repaired {
		s.Repaired++
		if side.Rounds == 1 {
			s.FirstTry++
		}
	}
	m := side.Measure
	if m.Named {
		s.Named++
	}
	if m.Stated {
		s.Stated++
	}
	s.Claims += m.Claims
	s.FalseClaims += len(m.False)
	s.Tokens += m.Tokens
	s.Issues += c.Want.Issues
}

// Sum is the stats of one side of run, over the cases kind selects ("" for
// every kind).
func (run *PathRun) Sum(healed bool, kind string) Stats {
	var s Stats
	for _, r := range run.Results {
		if kind != "" && r.Case.Kind != kind {
			continue
		}
		side := r.Plain
		if healed {
			side = r.Healed
		}
		s.add(r.Case, side)
	}
	return s
}

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}

func ratio(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d", n, of)
}

func perIssue(s Stats) string {
	if s.Issues == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", float64(s.Tokens)/float64(s.Issues))
}

// Headline is one line per path: the figures the report leads with.
func (b *Bench) Headline() []string {
	var out []string
	for _, run := range b.Runs {
		h, p := run.Sum(true, ""), run.Sum(false, "")
		out = append(out, fmt.Sprintf("%-10s repaired %s (%s) of %d refused, SDK text %s (%s) of %d; false \"You sent\" %d of %d; tokens/issue %s (SDK %s); valid refused %d",
			run.Path.Name, pct(h.Repaired, h.Rejected), ratio(h.Repaired, h.Rejected), h.Rejected,
			pct(p.Repaired, p.Rejected), ratio(p.Repaired, p.Rejected), p.Rejected, h.FalseClaims, h.Claims,
			perIssue(h), perIssue(p), len(run.ValidRefused)))
	}
	return out
}
