package futures

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/go-cmp/cmp"
)

// Trace is what one runner observed in one scenario.
type Trace struct {
	// Steps are the step results, in step order.
	Steps []Event `json:"steps,omitempty"`
	// Callbacks are the callback and errback invocations, in the order they happened.
	Callbacks []Event `json:"callbacks,omitempty"`
}

// Event is one observation. Callback events set Kind ("callback" or "errback"), ID, Page, Rows or
// Error, and Inline; step events set Op and the fields that step reports.
type Event struct {
	Kind          string          `json:"kind,omitempty"`
	Op            string          `json:"op,omitempty"`
	ID            string          `json:"id,omitempty"`
	Page          int             `json:"page,omitempty"`
	Rows          *[]string       `json:"rows,omitempty"`
	Row           *string         `json:"row,omitempty"`
	Error         string          `json:"error,omitempty"`
	Inline        bool            `json:"inline,omitempty"`
	HasMorePages  *bool           `json:"has_more_pages,omitempty"`
	Value         json.RawMessage `json:"value,omitempty"`
	Present       *bool           `json:"present,omitempty"`
	OK            bool            `json:"ok,omitempty"`
	Distinct      *bool           `json:"distinct,omitempty"`
	SameFuture    *bool           `json:"same_future,omitempty"`
	ReturnsFuture *bool           `json:"returns_future,omitempty"`
	Have          int             `json:"have,omitempty"`
	Want          int             `json:"want,omitempty"`
}

// normalize compacts Value so that formatting differences between the runners do not count.
func (t Trace) normalize() Trace {
	norm := func(evs []Event) []Event {
		out := make([]Event, len(evs))
		for i, e := range evs {
			if len(e.Value) > 0 {
				var b bytes.Buffer
				if json.Compact(&b, e.Value) == nil {
					e.Value = b.Bytes()
				}
			}
			out[i] = e
		}
		return out
	}
	return Trace{Steps: norm(t.Steps), Callbacks: norm(t.Callbacks)}
}

// valueJSON compares Values as text.
var valueJSON = cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })

// remove deletes from evs the first event equal to each of drop, and fails when one is missing.
func remove(evs []Event, drop []Event, side string) ([]Event, error) {
	out := append([]Event(nil), evs...)
	for _, d := range drop {
		found := -1
		for i, e := range out {
			if cmp.Equal(e, d, valueJSON) {
				found = i
				break
			}
		}
		if found < 0 {
			return nil, fmt.Errorf("the documented %s-only event %+v was not observed", side, d)
		}
		out = append(out[:found], out[found+1:]...)
	}
	return out, nil
}

// Compare returns a go-cmp diff (-python +go) between the two traces of a scenario, empty when
// they agree. For a scenario with a Deviation, exactly the listed events are removed from each
// side first; a listed event that is missing is an error (the deviation is not what is
// documented).
func Compare(sc Scenario, python, golang Trace) (string, error) {
	py, gt := python.normalize(), golang.normalize()
	if d := sc.Deviation; d != nil {
		pyOnly, goOnly := d.PythonOnly.normalize(), d.GoOnly.normalize()
		var err error
		if py.Steps, err = remove(py.Steps, pyOnly.Steps, "python"); err != nil {
			return "", err
		}
		if py.Callbacks, err = remove(py.Callbacks, pyOnly.Callbacks, "python"); err != nil {
			return "", err
		}
		if gt.Steps, err = remove(gt.Steps, goOnly.Steps, "go"); err != nil {
			return "", err
		}
		if gt.Callbacks, err = remove(gt.Callbacks, goOnly.Callbacks, "go"); err != nil {
			return "", err
		}
	}
	empty := func(evs []Event) []Event {
		if len(evs) == 0 {
			return nil
		}
		return evs
	}
	py.Steps, py.Callbacks = empty(py.Steps), empty(py.Callbacks)
	gt.Steps, gt.Callbacks = empty(gt.Steps), empty(gt.Callbacks)
	return cmp.Diff(py, gt, valueJSON), nil
}
