package main

import (
	"encoding/json"
	"os"
)

// Dump writes every result as one JSON line: the raw data behind the
// report, for reading a case in full.
func Dump(b *Bench, file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, run := range b.Runs {
		for _, r := range run.Results {
			for _, side := range []struct {
				name string
				s    Side
			}{{"healed", r.Healed}, {"plain", r.Plain}} {
				if err := enc.Encode(map[string]any{
					"path": run.Path.Name, "side": side.name, "case": r.Case.ID, "did": r.Case.Did,
					"args": json.RawMessage(encode(r.Case.Args)), "accepted": side.s.Accepted,
					"repaired": side.s.Repaired, "rounds": side.s.Rounds, "named": side.s.Measure.Named,
					"stated": side.s.Measure.Stated, "false": side.s.Measure.False, "tokens": side.s.Measure.Tokens,
					"text": side.s.First.Text, "last": side.s.Last.Text,
				}); err != nil {
					f.Close()
					return err
				}
			}
		}
	}
	return f.Close()
}
