// Package trace is the record a conformance scenario leaves: every call it made, with the values
// returned and the errors (type, message and fields), in order. Traces are written as JSON by
// the agent and compared with go-cmp by the runner.
package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// Event is one observable step of a scenario.
type Event struct {
	Step   string   `json:"step"`             // what was called, e.g. "iter.Scan"
	Values []string `json:"values,omitempty"` // returned values, each as "<Go type>:<value>"
	Err    *Error   `json:"err,omitempty"`    // the error returned, if any
}

// Error describes a returned error: its dynamic type, message, and exported fields.
type Error struct {
	Type    string            `json:"type"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
}

// Scenario is the trace of one scenario run.
type Scenario struct {
	Name   string  `json:"name"`
	Events []Event `json:"events"`
	Panic  string  `json:"panic,omitempty"` // a panic that escaped the scenario
}

// Recorder accumulates events. A scenario calls its methods in the order things happen.
type Recorder struct {
	events     []Event
	normalizer func(string) string
}

// NewRecorder returns a recorder applying normalize (may be nil) to every formatted value and
// error message (used to blank host addresses, timings and trace ids; see Normalizations).
func NewRecorder(normalize func(string) string) *Recorder {
	if normalize == nil {
		normalize = func(s string) string { return s }
	}
	return &Recorder{normalizer: normalize}
}

// Events returns the recorded events.
func (r *Recorder) Events() []Event { return r.events }

// Record adds a step with the given values and error.
func (r *Recorder) Record(step string, err error, values ...any) {
	ev := Event{Step: step}
	for _, v := range values {
		ev.Values = append(ev.Values, r.normalizer(Format(v)))
	}
	if err != nil {
		ev.Err = r.describe(err)
	}
	r.events = append(r.events, ev)
}

// Mutate changes the last recorded event with f; the runner's self-test uses it to make the shim's
// trace wrong on purpose.
func (r *Recorder) Mutate(f func(*Event)) {
	if len(r.events) > 0 {
		f(&r.events[len(r.events)-1])
	}
}

func (r *Recorder) describe(err error) *Error {
	e := &Error{Type: fmt.Sprintf("%T", err), Message: r.normalizer(err.Error())}
	// Wrapped context errors are reported by identity, as applications test them with errors.Is.
	for _, target := range []error{contextCanceled, contextDeadline} {
		if errors.Is(err, target) && e.Fields == nil {
			e.Fields = map[string]string{"errors.Is": target.Error()}
		}
	}
	v := reflect.ValueOf(err)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if e.Fields == nil {
				e.Fields = map[string]string{}
			}
			e.Fields[f.Name] = r.normalizer(Format(v.Field(i).Interface()))
		}
	}
	// Errors that expose code and message methods (gocql's RequestError).
	if rq, ok := err.(interface {
		Code() int
		Message() string
	}); ok {
		if e.Fields == nil {
			e.Fields = map[string]string{}
		}
		e.Fields["Code()"] = fmt.Sprintf("0x%04x", rq.Code())
		e.Fields["Message()"] = r.normalizer(rq.Message())
	}
	return e
}

// Format renders a value with its Go type, deterministically (maps with sorted keys).
func Format(v any) string {
	return typeName(v) + ":" + formatValue(reflect.ValueOf(v))
}

func typeName(v any) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprintf("%T", v)
}

func formatValue(v reflect.Value) string {
	if !v.IsValid() {
		return "<nil>"
	}
	switch v.Kind() {
	case reflect.Map:
		if v.IsNil() {
			return "map(nil)"
		}
		keys := v.MapKeys()
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, formatValue(k)+"="+typedValue(v.MapIndex(k)))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, " ") + "}"
	case reflect.Pointer:
		if v.IsNil() {
			return "(nil)"
		}
		if s, ok := v.Interface().(fmt.Stringer); ok {
			return s.String() + hidden(v.Elem())
		}
		return "&" + formatValue(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return "(nil)"
		}
		return typedValue(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return "[](nil)"
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return fmt.Sprintf("%x", v.Bytes())
		}
		fallthrough
	case reflect.Array:
		if s, ok := v.Interface().(fmt.Stringer); ok && v.Kind() == reflect.Array {
			return s.String()
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = typedValue(v.Index(i))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	if v.Kind() == reflect.Struct {
		if v.CanInterface() {
			switch x := v.Interface().(type) {
			case fmt.Stringer:
				return x.String() + hidden(v)
			case error:
				return x.Error()
			}
		}
		// Exported fields only, by name, each with its type: pointers are followed (an address
		// would differ between runs) and unexported internals of the implementation are not
		// part of the observable value.
		t := v.Type()
		var parts []string
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() {
				parts = append(parts, f.Name+"="+typedValue(v.Field(i)))
			}
		}
		return "{" + strings.Join(parts, " ") + "}"
	}
	if v.CanInterface() {
		switch x := v.Interface().(type) {
		case fmt.Stringer:
			return x.String()
		case error:
			return x.Error()
		}
		return fmt.Sprintf("%v", v.Interface())
	}
	return fmt.Sprintf("%v", v)
}

// hidden returns what the String method of a value leaves out and an application can see:
// the bytes of a byte slice (net.IP prints an IPv4 address the same in its 4- and 16-byte
// forms, which differ in len and bytes.Equal) and the location of a time.Time (String prints
// the zone's abbreviation, the same for time.UTC and for time.Local on a host whose zone is
// UTC, which differ in Location() and ==).
func hidden(v reflect.Value) string {
	switch {
	case !v.IsValid():
		return ""
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		return " bytes=" + fmt.Sprintf("%x", v.Bytes())
	case v.Type() == reflect.TypeOf(time.Time{}) && v.CanInterface():
		switch loc := v.Interface().(time.Time).Location(); loc {
		case time.UTC:
			return " loc=time.UTC"
		case time.Local:
			return " loc=time.Local"
		default:
			return " loc=" + loc.String()
		}
	}
	return ""
}

func typedValue(v reflect.Value) string {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() {
		return "nil"
	}
	return v.Type().String() + ":" + formatValue(v)
}

// Encode writes traces as JSON.
func Encode(scenarios []Scenario) ([]byte, error) { return json.MarshalIndent(scenarios, "", " ") }

// Decode reads traces written by Encode.
func Decode(b []byte) ([]Scenario, error) {
	var out []Scenario
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("decoding traces: %w", err)
	}
	return out, nil
}
