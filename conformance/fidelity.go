package conformance

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/conformance/trace"
)

// FidelityRecord compares the legacy (gocql v1.7.0) trace of one scenario on a reference server
// (the real Cassandra node) with its legacy trace on another server (cqlsim). The same client
// against two servers: a difference is the server's, which is how the suite measures cqlsim's
// fidelity.
type FidelityRecord struct {
	Name      string   `json:"name"`
	Reference string   `json:"reference"` // e.g. "cassandra"
	Server    string   `json:"server"`    // e.g. "cqlsim"
	Same      bool     `json:"same"`      // identical after the fidelity normalizations
	Diff      string   `json:"diff"`      // -reference +server, empty when Same
	Summary   string   `json:"summary"`   // the first differing step, both sides, in one line
	Messages  []string `json:"messages"`  // server error messages that differ only in wording
}

// FidelityNormalizations lists what is blanked, on top of Normalizations, before the legacy
// traces of two servers are compared.
func FidelityNormalizations() []string {
	return []string{
		"server error messages (Error() and Message()) are compared separately and listed as wording differences; " +
			"the error's Go type, code and typed fields (Keyspace, Table, Consistency, ...) are compared",
		"a scenario's trace is otherwise compared as is: values read back, page states by presence, NumRows, " +
			"WillSwitchPage, warnings the scenario records, metadata, observer fields",
	}
}

// CompareServers compares, scenario by scenario, the legacy traces of ref (the reference server)
// and other. Scenarios that ran on only one of them are reported as differences.
func CompareServers(ref, other *Outcome) []FidelityRecord {
	var out []FidelityRecord
	for _, name := range ref.Order {
		r := ref.Legacy[name]
		rec := FidelityRecord{Name: name, Reference: ref.Server, Server: other.Server}
		o, ok := other.Legacy[name]
		if !ok {
			rec.Diff = "scenario missing on " + other.Server
			rec.Summary = rec.Diff
			out = append(out, rec)
			continue
		}
		rn, on := stripMessages(r, o), stripMessages(o, r)
		rec.Messages = messageDiffs(r, o)
		rec.Diff = cmp.Diff(rn, on)
		rec.Same = rec.Diff == ""
		if !rec.Same {
			rec.Summary = firstDifference(r, o, ref.Server, other.Server)
		}
		out = append(out, rec)
	}
	for _, name := range other.Order {
		if _, ok := ref.Legacy[name]; !ok {
			out = append(out, FidelityRecord{Name: name, Reference: ref.Server, Server: other.Server,
				Diff: "scenario missing on " + ref.Server, Summary: "scenario missing on " + ref.Server})
		}
	}
	return out
}

// stripMessages returns a copy of s with the server's error wording blanked where other has an
// error at the same position of the same step too (elsewhere the message stays, to show what
// failed).
func stripMessages(s, other trace.Scenario) trace.Scenario {
	c := s
	c.Events = make([]trace.Event, len(s.Events))
	for i, ev := range s.Events {
		if ev.Err != nil && i < len(other.Events) && other.Events[i].Step == ev.Step && other.Events[i].Err != nil {
			e := *ev.Err
			e.Message = "<message>"
			if _, ok := e.Fields["Message()"]; ok {
				f := make(map[string]string, len(e.Fields))
				for k, v := range e.Fields {
					f[k] = v
				}
				f["Message()"] = "<message>"
				e.Fields = f
			}
			ev.Err = &e
		}
		c.Events[i] = ev
	}
	return c
}

// messageDiffs lists, for events at the same position with the same step, the error messages
// whose wording differs.
func messageDiffs(a, b trace.Scenario) []string {
	var out []string
	for i := 0; i < len(a.Events) && i < len(b.Events); i++ {
		ea, eb := a.Events[i], b.Events[i]
		if ea.Step != eb.Step || ea.Err == nil || eb.Err == nil || ea.Err.Message == eb.Err.Message {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %q vs %q", ea.Step, ea.Err.Message, eb.Err.Message))
	}
	return out
}

// PrintFidelity writes the scenarios whose legacy traces differ between the two servers.
func PrintFidelity(w io.Writer, recs []FidelityRecord) {
	same, wording := 0, 0
	for _, r := range recs {
		if r.Same {
			same++
			if len(r.Messages) > 0 {
				wording++
			}
		}
	}
	if len(recs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nfidelity (legacy gocql on %s vs %s): %d scenarios, %d identical (%d of them with different error wording), %d differ\n",
		recs[0].Reference, recs[0].Server, len(recs), same, wording, len(recs)-same)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range recs {
		switch {
		case !r.Same:
			fmt.Fprintf(tw, "%s\tDIFFERS\t%s\n", r.Name, r.Summary)
		case len(r.Messages) > 0:
			fmt.Fprintf(tw, "%s\twording\t%s\n", r.Name, r.Messages[0])
		}
	}
	tw.Flush()
}

// summarize returns the first removed and the first added line of a go-cmp diff.
func summarize(diff string) string {
	var minus, plus string
	for _, l := range strings.Split(diff, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case minus == "" && strings.HasPrefix(t, "-"):
			minus = t
		case plus == "" && strings.HasPrefix(t, "+"):
			plus = t
		}
	}
	if minus == "" && plus == "" {
		return firstLine(strings.TrimSpace(diff))
	}
	return strings.TrimSpace(minus + " " + plus)
}

// firstDifference describes the first event where two traces differ, both sides in one line.
func firstDifference(a, b trace.Scenario, an, bn string) string {
	if a.Panic != b.Panic {
		return fmt.Sprintf("panic: %s %q, %s %q", an, a.Panic, bn, b.Panic)
	}
	for i := 0; i < len(a.Events) || i < len(b.Events); i++ {
		switch {
		case i >= len(a.Events):
			return fmt.Sprintf("%s has an extra step: %s", bn, describeEvent(b.Events[i]))
		case i >= len(b.Events):
			return fmt.Sprintf("%s has an extra step: %s", an, describeEvent(a.Events[i]))
		}
		ea, eb := a.Events[i], b.Events[i]
		if !cmp.Equal(stripEvent(ea), stripEvent(eb)) {
			return fmt.Sprintf("%s: %s; %s: %s", an, describeEvent(ea), bn, describeEvent(eb))
		}
	}
	return ""
}

// stripEvent blanks an event's error wording (compared separately).
func stripEvent(ev trace.Event) trace.Event {
	return stripMessages(trace.Scenario{Events: []trace.Event{ev}}, trace.Scenario{Events: []trace.Event{ev}}).Events[0]
}

func describeEvent(ev trace.Event) string {
	s := ev.Step
	if len(ev.Values) > 0 {
		s += " " + strings.Join(ev.Values, ", ")
	}
	if ev.Err != nil {
		code := ev.Err.Fields["Code()"]
		s += fmt.Sprintf(" error %s %s %q", ev.Err.Type, code, ev.Err.Message)
	}
	return s
}
