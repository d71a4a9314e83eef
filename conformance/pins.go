package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/conformance/trace"
)

// A pinned deviation says how the shim differs from gocql v1.7.0, but "differs" alone would
// let the shim change its side of the deviation (fail another way, or succeed silently where
// it used to report an error) and still pass. testdata/pinned-<server>.json therefore holds the
// shim's trace of every pinned scenario, as the deviation documents it; CheckPins compares the
// shim's trace of this run with it.

// pinsPath is the file of the shim traces of the pinned deviations on server.
func pinsPath(server string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "conformance", "testdata", "pinned-"+server+".json"), nil
}

// portOfHost blanks the port after a normalised address: a scenario that starts a cqlsim of
// its own (server_frames.go) gets a new port every run.
var portOfHost = regexp.MustCompile(`<host>:[0-9]+`)

func pinForm(s trace.Scenario) trace.Scenario {
	blank := func(v string) string { return portOfHost.ReplaceAllString(v, "<host>:<port>") }
	out := trace.Scenario{Name: s.Name, Panic: blank(s.Panic)}
	for _, ev := range s.Events {
		e := trace.Event{Step: blank(ev.Step)}
		for _, v := range ev.Values {
			e.Values = append(e.Values, blank(v))
		}
		if ev.Err != nil {
			e.Err = &trace.Error{Type: ev.Err.Type, Message: blank(ev.Err.Message)}
			for k, v := range ev.Err.Fields {
				if e.Err.Fields == nil {
					e.Err.Fields = map[string]string{}
				}
				e.Err.Fields[k] = blank(v)
			}
		}
		out.Events = append(out.Events, e)
	}
	return out
}

// ReadPins returns the pinned shim traces of server by scenario name; ok is false when the
// server has no file (its pins were never recorded).
func ReadPins(server string) (pins map[string]trace.Scenario, ok bool, err error) {
	path, err := pinsPath(server)
	if err != nil {
		return nil, false, err
	}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := json.Unmarshal(data, &pins); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return pins, true, nil
}

// WritePins records the shim traces of out's pinned scenarios as the server's pins (the
// scenarios of out only: the file is rewritten from this run).
func WritePins(out *Outcome) error {
	path, err := pinsPath(out.Server)
	if err != nil {
		return err
	}
	pins := map[string]trace.Scenario{}
	for _, name := range out.Order {
		if s, ok := out.Shim[name]; ok && isPinned(name) {
			pins[name] = pinForm(s)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // <host>, <keyspace> as they read in a diff
	enc.SetIndent("", " ")
	if err := enc.Encode(pins); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// CheckPins compares the shim's trace of every pinned scenario of out with its pin and returns
// a record (Diff: -pinned +shim) for each that changed or has no pin, and for each pin of a
// scenario that is no longer a pinned deviation. recorded is false when the server has no pins
// file: nothing was checked.
func CheckPins(out *Outcome) (drift []Record, recorded bool, err error) {
	pins, recorded, err := ReadPins(out.Server)
	if err != nil || !recorded {
		return nil, recorded, err
	}
	return comparePins(pins, out), true, nil
}

func comparePins(pins map[string]trace.Scenario, out *Outcome) (drift []Record) {
	var stale []string
	for name := range pins {
		if !isPinned(name) {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	for _, name := range stale {
		drift = append(drift, Record{Name: name, Server: out.Server,
			Diff: "testdata/pinned-" + out.Server + ".json holds a scenario that is not a pinned deviation; remove it"})
	}
	for _, r := range out.Records {
		if !isPinned(r.Name) {
			continue
		}
		s, ran := out.Shim[r.Name]
		if !ran {
			continue // the shim did not run; the record says so already
		}
		pin, ok := pins[r.Name]
		if !ok {
			drift = append(drift, Record{Name: r.Name, Server: out.Server,
				Diff: "pinned deviation without a pinned shim trace in testdata/pinned-" + out.Server + ".json"})
			continue
		}
		if d := cmp.Diff(pin, pinForm(s)); d != "" {
			drift = append(drift, Record{Name: r.Name, Server: out.Server, Diff: d})
		}
	}
	return drift
}
