package conformance

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/conformance/trace"
)

// Record is one scenario's outcome on one server. Its JSON keys are a fixed interface.
type Record struct {
	Name   string `json:"name"`
	Server string `json:"server"`
	Legacy string `json:"legacy"` // "pass" or "fail": the scenario ran to its end without a panic
	Shim   string `json:"shim"`
	Same   bool   `json:"same"`
	Diff   string `json:"diff"`
}

// Options configures one run of the suite.
type Options struct {
	Hosts    []string // servers (host:port), both builds run against the same ones
	Server   string   // label for the report, e.g. "cassandra" or "cqlsim"
	Filter   string   // only scenarios matching this regular expression
	Sabotage string   // corrupt the shim's trace of this scenario (self-test)
	WorkDir  string   // where binaries and traces go; a temporary directory when empty
	Stderr   *bytes.Buffer

	// ScenarioTimeout is each scenario's context deadline in both agents (0: the agent's
	// default, 180s); a scenario still running 30s after it is reported as hung.
	ScenarioTimeout time.Duration
}

// Build is the pair of agent binaries: legacy gocql and the shim (drop-in replace).
type Build struct {
	Legacy, Shim string
	ShimErr      error // the shim build failed: every scenario fails on the shim side
}

// ModuleRoot returns the directory of cqlbridge's go.mod.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the cqlbridge module")
	}
	return filepath.Dir(mod), nil
}

// BuildAgents compiles the agent twice: as is (legacy gocql v1.7.0) and with a copy of go.mod
// that adds `replace github.com/gocql/gocql => <root>/compat/gocql/dropin` (the shim).
func BuildAgents(ctx context.Context, dir string) (*Build, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	b := &Build{Legacy: filepath.Join(dir, "agent-legacy"), Shim: filepath.Join(dir, "agent-shim")}
	const pkg = "./conformance/cmd/conform-agent"
	cmd := exec.CommandContext(ctx, "go", "build", "-o", b.Legacy, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the legacy agent: %v\n%s", err, out)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	gosum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
	dropin := filepath.Join(root, "compat", "gocql", "dropin")
	modfile := filepath.Join(dir, "shim.mod")
	shimMod := string(gomod) + "\nreplace github.com/gocql/gocql => " + dropin + "\n"
	if err := os.WriteFile(modfile, []byte(shimMod), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "shim.sum"), gosum, 0o644); err != nil {
		return nil, err
	}
	cmd = exec.CommandContext(ctx, "go", "build", "-mod=mod", "-modfile", modfile, "-o", b.Shim, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.ShimErr = fmt.Errorf("building the shim agent (replace to %s): %v\n%s", dropin, err, out)
	}
	return b, nil
}

// runAgent runs one agent binary and returns its traces by scenario name.
func runAgent(ctx context.Context, bin, label, out string, o Options, sabotage string) (map[string]trace.Scenario, []string, error) {
	args := []string{"--hosts", strings.Join(o.Hosts, ","), "--out", out, "--label", label}
	if o.Filter != "" {
		args = append(args, "--run", o.Filter)
	}
	if sabotage != "" {
		args = append(args, "--sabotage", sabotage)
	}
	if o.ScenarioTimeout > 0 {
		args = append(args, "--scenario-timeout", o.ScenarioTimeout.String())
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, nil, fmt.Errorf("%s agent: %v: %s", label, err, strings.TrimSpace(stderr.String()))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, nil, err
	}
	list, err := trace.Decode(data)
	if err != nil {
		return nil, nil, err
	}
	m := make(map[string]trace.Scenario, len(list))
	var order []string
	for _, s := range list {
		m[s.Name] = s
		order = append(order, s.Name)
	}
	return m, order, nil
}

// Outcome is one run of the suite on one server: the records, and the legacy traces (kept for
// comparing servers, see CompareServers).
type Outcome struct {
	Server  string
	Records []Record
	Legacy  map[string]trace.Scenario
	Shim    map[string]trace.Scenario // nil when the shim agent did not run (see CheckPins)
	Order   []string                  // scenario names in run order
}

// Run builds (unless b is given) and runs both agents against o.Hosts and compares their traces
// scenario by scenario.
func Run(ctx context.Context, b *Build, o Options) ([]Record, error) {
	out, err := RunOutcome(ctx, b, o)
	if err != nil {
		return nil, err
	}
	return out.Records, nil
}

// RunOutcome is Run, also returning the legacy traces.
func RunOutcome(ctx context.Context, b *Build, o Options) (*Outcome, error) {
	dir := o.WorkDir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "conform"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	}
	if b == nil {
		var err error
		if b, err = BuildAgents(ctx, dir); err != nil {
			return nil, err
		}
	}
	legacy, order, err := runAgent(ctx, b.Legacy, "legacy", filepath.Join(dir, "legacy-"+o.Server+".json"), o, "")
	if err != nil {
		return nil, err
	}
	var shim map[string]trace.Scenario
	shimErr := b.ShimErr
	if shimErr == nil {
		shim, _, shimErr = runAgent(ctx, b.Shim, "shim", filepath.Join(dir, "shim-"+o.Server+".json"), o, o.Sabotage)
	}
	records := make([]Record, 0, len(order))
	for _, name := range order {
		l := legacy[name]
		rec := Record{Name: name, Server: o.Server, Legacy: status(l)}
		s, ok := shim[name]
		switch {
		case shimErr != nil:
			rec.Shim = "fail"
			rec.Diff = firstLine(shimErr.Error())
		case !ok:
			rec.Shim = "fail"
			rec.Diff = "scenario missing from the shim's trace"
		default:
			rec = compareTraces(rec, l, s)
		}
		records = append(records, rec)
	}
	return &Outcome{Server: o.Server, Records: records, Legacy: legacy, Shim: shim, Order: order}, nil
}

// shimPanickedAlike begins the Diff of a scenario whose traces are identical but for the
// shim having panicked as gocql v1.7.0 does.
const shimPanickedAlike = "the shim panicked as gocql v1.7.0 does (a panic escaping the scenario is a cqlbridge defect even where gocql has it): "

// compareTraces fills in rec (named, with its server and legacy status) from the legacy and
// shim traces of its scenario, both present.
func compareTraces(rec Record, l, s trace.Scenario) Record {
	rec.Shim = status(s)
	rec.Diff = cmp.Diff(l, s)
	rec.Same = rec.Diff == ""
	if rec.Same && s.Panic != "" {
		// gocql panics the same way; the shim must not (a legacy panic is a plain bug,
		// fixed and pinned as a deviation), so this is not "the same".
		rec.Same = false
		rec.Diff = shimPanickedAlike + s.Panic
	}
	if step := abortedSetup(l); rec.Same && step != "" {
		// Both sides failed the same set-up statement and stopped: nothing the scenario
		// is about was compared, which is not "the same".
		rec.Same = false
		rec.Diff = "the scenario stopped at a failed set-up step on both sides, so it compared nothing: " + step
	}
	return rec
}

// abortedSetup returns the step of a scenario that ended on a failed set-up statement
// (scenarios.Env.Exec records "setup <statement>" with its error, and the scenario returns),
// or "" when it went on past its set-up.
func abortedSetup(s trace.Scenario) string {
	if s.Panic != "" || len(s.Events) == 0 {
		return ""
	}
	last := s.Events[len(s.Events)-1]
	if last.Err != nil && strings.HasPrefix(last.Step, "setup ") {
		return last.Step + ": " + last.Err.Message
	}
	return ""
}

func status(s trace.Scenario) string {
	if s.Panic != "" {
		return "fail"
	}
	return "pass"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
