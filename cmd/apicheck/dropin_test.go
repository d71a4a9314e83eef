package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A package with every kind of declaration the generator must re-export.
const dropinFixture = `package fx

import (
	"io"
	"time"
)

type Kind int

const (
	KindA Kind = iota
	KindB
	Limit = 10
)

type Thing struct{ Name string }

type hidden struct{}

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

var ErrGone = io.EOF

var Hidden = hidden{}

func New(name string, opts ...time.Duration) (*Thing, error) { return &Thing{Name: name}, nil }

func Nothing() {}

func makeHidden() hidden { return hidden{} }

func Secret() hidden { return makeHidden() }

func First[T any](xs ...T) T { return xs[0] }

func Copy(w io.Writer, r io.Reader) (int64, error) { return io.Copy(w, r) }
`

// TestGeneratedDropinCompilesAndForwards builds a fixture package and its
// generated re-export package in a scratch module and runs a program that
// uses the re-exports.
func TestGeneratedDropinCompilesAndForwards(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	pkg := checkSource(t, "example.com/scratch/fx", dropinFixture)
	src, err := generateDropin(pkg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"type Thing = compat.Thing", "type Pair[K comparable, V any] = compat.Pair[K, V]",
		"const KindB = compat.KindB", "var ErrGone = compat.ErrGone",
		"func New(p0 string, p1 ...time.Duration) (*Thing, error) {\n\treturn compat.New(p0, p1...)",
		"var Secret = compat.Secret", "func First[T any](p0 ...T) T {", "func Nothing() {\n\tcompat.Nothing()",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated drop-in lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(string(src), "hidden =") || strings.Contains(string(src), "func makeHidden") {
		t.Errorf("generated drop-in re-exports unexported identifiers:\n%s", src)
	}

	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/scratch\n\ngo 1.24\n",
		"fx/fx.go":        dropinFixture,
		"dropin/gocql.go": string(src),
		"main.go": `package main

import (
	"fmt"
	"time"

	gocql "example.com/scratch/dropin"
)

func main() {
	th, err := gocql.New("n", time.Second)
	var p gocql.Pair[string, int]
	p.Key = "k"
	fmt.Println(th.Name, err, gocql.KindB, gocql.Limit, gocql.First(3, 4), p.Key, gocql.ErrGone, gocql.Secret() == gocql.Hidden)
}
`,
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scratch module does not build: %v\n%s\n%s", err, out, src)
	}
	if got := strings.TrimSpace(string(out)); got != "n <nil> 1 10 3 k EOF true" {
		t.Errorf("program printed %q", got)
	}
}

func TestDropinGoModDirectives(t *testing.T) {
	mod := dropinGoMod("github.com/cqlbridge/cqlbridge")
	for _, want := range []string{"module github.com/gocql/gocql\n", "go 1.24\n",
		"require github.com/cqlbridge/cqlbridge v0.0.0\n", "replace github.com/cqlbridge/cqlbridge => ../../..\n"} {
		if !strings.Contains(mod, want) {
			t.Errorf("go.mod lacks %q:\n%s", want, mod)
		}
	}
}

// TestRunOnTheRealPackages runs the checker on gocql v1.7.0 and compat/gocql
// as `go run ./cmd/apicheck -allow-missing` would, without writing the
// document.
func TestRunOnTheRealPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles gocql and compat/gocql")
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"-allow-missing", "-doc", ""}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit status %d\nstderr: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`^missing: \d+, differing: \d+$`).MatchString(last) {
		t.Errorf("last line %q", last)
	}
	// ErrNotFound is the value layer's and must be matched exactly.
	if strings.Contains(stdout.String(), " ErrNotFound") || strings.Contains(stdout.String(), " Marshal:") {
		t.Errorf("value-layer identifiers reported as gaps:\n%s", stdout.String())
	}
}
