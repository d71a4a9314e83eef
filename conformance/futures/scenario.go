package futures

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// Scenario is one conformance scenario, as stored in scenarios.json.
type Scenario struct {
	// Name identifies the scenario; docs/deviations.md refers to it.
	Name string `json:"name"`
	// Covers lists the legacy-semantics items (A1.., B1..) the scenario exercises.
	Covers []string `json:"covers"`
	// Statement is the CQL run by "execute" steps; {ks} is replaced by the keyspace.
	Statement string `json:"statement"`
	// PageSize is the fetch size (0: the driver's default).
	PageSize int `json:"page_size,omitempty"`
	// Steps run in order on the main goroutine/thread.
	Steps []Step `json:"steps"`
	// Go holds options for the Go side only.
	Go GoOptions `json:"go,omitempty"`
	// Deviation, when set, is the documented difference this scenario pins.
	Deviation *Deviation `json:"deviation,omitempty"`
	// RerunIf lists callback events that show the scenario's timing precondition did not hold
	// (say, a page arrived before the call that was meant to find it in flight), and step
	// events (with Op set; they match a step of that Op and Error, say a wait that timed out
	// because a page completed before a callback was registered). A runner whose trace holds
	// one runs the scenario again, up to MaxRuns times in all, and keeps the last trace; a
	// behaviour that always produces such an event still fails the comparison.
	RerunIf []Event `json:"rerun_if,omitempty"`
	// Fault, when set, is a server error that every node answers the scenario's statement with,
	// or a delay (see cqlsim.Cluster.InjectFault): such scenarios (faults.json) run on cqlsim
	// clusters of Nodes nodes (1 when zero), one per driver, because a real node cannot be made
	// to return these errors or to be slow on demand.
	Fault *Fault `json:"fault,omitempty"`
	// Faults are more faults on the same statement, injected after Fault in their order.
	Faults []Fault `json:"faults,omitempty"`
	// Nodes is the size of a fault scenario's cqlsim clusters (1 when zero).
	Nodes int `json:"nodes,omitempty"`
}

// AllFaults returns Fault and Faults, in injection order.
func (sc Scenario) AllFaults() []*Fault {
	var all []*Fault
	if sc.Fault != nil {
		all = append(all, sc.Fault)
	}
	for i := range sc.Faults {
		all = append(all, &sc.Faults[i])
	}
	return all
}

// Fault describes an injected server error or delay. Error is one of read_timeout,
// write_timeout, unavailable, overloaded, bootstrapping, server_error, truncate_error,
// read_failure, invalid, or empty for a delay alone; the fields after it fill the error's fields where it
// has them. Delay (seconds) holds the answer back; Skip lets that many statements through
// first; Times is how many statements each node fails or delays (0: all).
type Fault struct {
	Error       string  `json:"error,omitempty"`
	Delay       float64 `json:"delay,omitempty"`
	Skip        int     `json:"skip,omitempty"`
	Consistency string  `json:"consistency,omitempty"`
	Received    int32   `json:"received,omitempty"`
	BlockFor    int32   `json:"block_for,omitempty"`
	Alive       int32   `json:"alive,omitempty"`
	DataPresent bool    `json:"data_present,omitempty"`
	WriteType   string  `json:"write_type,omitempty"`
	Times       int     `json:"times,omitempty"`
	// Warnings travel with the error.
	Warnings []string `json:"warnings,omitempty"`
}

// Sim returns the fault for cqlsim.Cluster.InjectFault, matching the statement text match.
func (f *Fault) Sim(match string) (cqlsim.Fault, error) {
	msg, err := f.Message()
	if err != nil {
		return cqlsim.Fault{}, err
	}
	if f.Delay < 0 || (msg == nil && f.Delay == 0) {
		return cqlsim.Fault{}, fmt.Errorf("futures: a fault needs an error or a positive delay (delay %v)", f.Delay)
	}
	if len(f.Warnings) > 0 && msg == nil {
		return cqlsim.Fault{}, fmt.Errorf("futures: a fault's warnings need an error to travel with")
	}
	return cqlsim.Fault{Match: match, Error: msg, Warnings: f.Warnings, Delay: time.Duration(f.Delay * float64(time.Second)),
		Skip: f.Skip, Times: f.Times}, nil
}

// Message returns the ERROR message the fault sends, nil for a delay alone.
func (f *Fault) Message() (message.Error, error) {
	cl := primitive.ConsistencyLevelOne
	if f.Consistency != "" {
		var ok bool
		if cl, ok = consistencyNames[f.Consistency]; !ok {
			return nil, fmt.Errorf("futures: fault consistency %q is not one of ONE, QUORUM, ALL, LOCAL_QUORUM", f.Consistency)
		}
	}
	msg := "injected " + f.Error
	switch f.Error {
	case "":
		return nil, nil
	case "read_timeout":
		return &message.ReadTimeout{ErrorMessage: msg, Consistency: cl, Received: f.Received, BlockFor: f.BlockFor, DataPresent: f.DataPresent}, nil
	case "write_timeout":
		wt := primitive.WriteType(f.WriteType)
		if wt == "" {
			wt = primitive.WriteTypeSimple
		}
		return &message.WriteTimeout{ErrorMessage: msg, Consistency: cl, Received: f.Received, BlockFor: f.BlockFor, WriteType: wt}, nil
	case "unavailable":
		return &message.Unavailable{ErrorMessage: msg, Consistency: cl, Required: f.BlockFor, Alive: f.Alive}, nil
	case "overloaded":
		return &message.Overloaded{ErrorMessage: msg}, nil
	case "bootstrapping":
		return &message.IsBootstrapping{ErrorMessage: msg}, nil
	case "server_error":
		return &message.ServerError{ErrorMessage: msg}, nil
	case "truncate_error":
		return &message.TruncateError{ErrorMessage: msg}, nil
	case "invalid":
		return &message.Invalid{ErrorMessage: msg}, nil
	case "read_failure":
		return &message.ReadFailure{ErrorMessage: msg, Consistency: cl, Received: f.Received, BlockFor: f.BlockFor, NumFailures: 1, DataPresent: f.DataPresent}, nil
	}
	return nil, fmt.Errorf("futures: unknown fault error %q", f.Error)
}

var consistencyNames = map[string]primitive.ConsistencyLevel{
	"ONE": primitive.ConsistencyLevelOne, "QUORUM": primitive.ConsistencyLevelQuorum,
	"ALL": primitive.ConsistencyLevelAll, "LOCAL_QUORUM": primitive.ConsistencyLevelLocalQuorum,
}

// MaxRuns bounds the runs of a scenario with RerunIf.
const MaxRuns = 5

// Raced reports whether t holds one of the scenario's RerunIf events: the run did not test
// what the scenario is about and is to be repeated.
func (sc Scenario) Raced(t Trace) bool {
	for _, r := range sc.RerunIf {
		if r.Op == "" {
			continue
		}
		for _, s := range t.Steps {
			if s.Op == r.Op && s.Error == r.Error {
				return true
			}
		}
	}
	for _, e := range t.normalize().Callbacks {
		for _, r := range (Trace{Callbacks: sc.RerunIf}).normalize().Callbacks {
			if cmp.Equal(e, r, valueJSON) {
				return true
			}
		}
	}
	return false
}

// Step is one operation of a scenario. Op selects it:
//
//	execute                      start the statement (Timeout: seconds, null for none; Trace;
//	                             Speculative; Retry; Resume)
//	add_callback, add_errback    register function ID with Action (record, raise, fetch_next;
//	                             callbacks also slow_has_more_pages: wait 0.3 s, then record
//	                             has_more_pages with the event)
//	add_callbacks                register ID (Action) and EID (EAction) together
//	wait                         wait until Events callback events exist (at most Timeout
//	                             seconds, 30 when not set), then Settle seconds
//	result                       record the current page's rows or error and has_more_pages
//	result_identity              check that two result calls give distinct sets of one future
//	result_as_old                keep a result set as "old"; old_current_rows, old_paging_state read it
//	has_more_pages, warnings, custom_payload, trace_id, start_fetching_next_page, clear_callbacks
//	rs_iter, rs_next (N), rs_all, rs_one, rs_current_rows, rs_fetch_next_page, rs_has_more_pages,
//	rs_paging_state, rs_was_applied, rs_column_names, rs_bool,
//	rs_query_trace (whether the set's get_query_trace / QueryTrace returns a trace)
//	                             on the last result set
//
// After marks an add step made once the outcome is known, so whether the function ran inline
// (inside the add call) is deterministic and recorded. RecordReturn records whether the add
// method returned the future.
type Step struct {
	Op           string   `json:"op"`
	ID           string   `json:"id,omitempty"`
	EID          string   `json:"eid,omitempty"`
	Action       string   `json:"action,omitempty"`
	EAction      string   `json:"eaction,omitempty"`
	After        bool     `json:"after,omitempty"`
	RecordReturn bool     `json:"record_return,omitempty"`
	Events       int      `json:"events,omitempty"`
	Settle       float64  `json:"settle,omitempty"`
	N            int      `json:"n,omitempty"`
	Statement    string   `json:"statement,omitempty"`
	PageSize     int      `json:"page_size,omitempty"`
	Timeout      *float64 `json:"timeout,omitempty"`
	NoTimeout    bool     `json:"-"` // set when "timeout": null
	Trace        bool     `json:"trace,omitempty"`
	// Speculative, on an execute step, marks the statement idempotent and runs it with a
	// speculative execution policy (Python: ConstantSpeculativeExecutionPolicy in an
	// execution profile; Go: native.Statement.WithSpeculativeExecution).
	Speculative *Speculative `json:"speculative,omitempty"`
	// Retry, on an execute step, names the statement's own retry policy: "ignore" answers
	// every retry decision with IGNORE (Python: a RetryPolicy whose on_* methods return
	// RetryPolicy.IGNORE; Go: a native.RetryPolicy returning native.Ignore). Empty keeps the
	// default (Python's RetryPolicy, future.PythonRetryPolicy).
	Retry string `json:"retry,omitempty"`
	// Resume, on an execute step, starts the statement at the paging state of the last result
	// set (Python: execute_async(..., paging_state=rs.paging_state); Go:
	// native.Statement.WithPagingState(rs.PagingState())).
	Resume bool `json:"resume,omitempty"`
}

// Speculative is a constant speculative execution policy: up to Attempts extra executions, one
// every Delay seconds.
type Speculative struct {
	Delay    float64 `json:"delay"`
	Attempts int     `json:"attempts"`
}

// UnmarshalJSON tells "timeout": null (no timer) from an absent timeout (the default).
func (s *Step) UnmarshalJSON(b []byte) error {
	type plain Step
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if t, ok := raw["timeout"]; ok && string(t) == "null" {
		p.NoTimeout = true
	}
	*s = Step(p)
	return nil
}

// GoOptions are options of the Go runner only.
type GoOptions struct {
	// Panics is "python" to run with callbacks.PythonReroute; empty for the default policy.
	Panics string `json:"panics,omitempty"`
}

// Deviation pins a documented difference: the events only the Python driver produces and those
// only future produces. ID is the deviation's anchor in docs/deviations.md.
type Deviation struct {
	ID         string `json:"id"`
	PythonOnly Trace  `json:"python_only"`
	GoOnly     Trace  `json:"go_only"`
}

// Load reads scenarios from a JSON file and checks that names are unique and steps known.
func Load(path string) ([]Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("futures: reading scenarios: %w", err)
	}
	var out []Scenario
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("futures: parsing %s: %w", path, err)
	}
	seen := map[string]bool{}
	for _, sc := range out {
		if sc.Name == "" || seen[sc.Name] {
			return nil, fmt.Errorf("futures: %s: scenario name %q is empty or repeated", path, sc.Name)
		}
		seen[sc.Name] = true
		for i, st := range sc.Steps {
			if !knownOps[st.Op] {
				return nil, fmt.Errorf("futures: scenario %s step %d: unknown op %q", sc.Name, i, st.Op)
			}
		}
		for _, f := range sc.AllFaults() {
			if _, err := f.Sim(sc.Statement); err != nil {
				return nil, fmt.Errorf("futures: scenario %s: %w", sc.Name, err)
			}
		}
	}
	return out, nil
}

var knownOps = map[string]bool{
	"execute": true, "add_callback": true, "add_errback": true, "add_callbacks": true, "wait": true,
	"result": true, "result_identity": true, "result_as_old": true, "old_current_rows": true,
	"old_paging_state": true, "has_more_pages": true, "warnings": true, "custom_payload": true,
	"trace_id": true, "start_fetching_next_page": true, "clear_callbacks": true, "rs_iter": true,
	"rs_next": true, "rs_all": true, "rs_one": true, "rs_current_rows": true,
	"rs_fetch_next_page": true, "rs_has_more_pages": true, "rs_paging_state": true,
	"rs_was_applied": true, "rs_column_names": true, "rs_bool": true, "rs_query_trace": true,
}
