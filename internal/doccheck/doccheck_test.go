package doccheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModule applies the rules to every package of the module.
func TestModule(t *testing.T) {
	problems, err := Module(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestDirFindsEachProblem checks that every rule reports what breaks it, so that TestModule
// passing means something.
func TestDirFindsEachProblem(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", `package a

func Undocumented() {}

// Documented is fine.
func Documented() {}

func unexported() {}

type T struct{}

func (T) M() {}

func (*T) PM() {}

type u struct{}

func (u) M() {}

// G documents its group.
const (
	A = 1
	B = 2
)

var V, W int

var X int // X has a line comment, which golint accepts.

//go:noinline
func DirectiveOnly() {}

//lint:ignore U1000 a directive is no doc comment
var Y int

type G[P any] struct{}

func (G[P]) GM() {}
`)
	// An Example without an output comment is compiled, not run: it does not count.
	write("a_test.go", "package a\n\nfunc TestX() {}\n\nfunc Example() {}\n")
	got, err := Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, p := range got {
		msgs = append(msgs, p.Message)
	}
	want := []string{
		"no package doc comment",
		"no runnable Example (one with an output comment) in the package's tests",
		"func Undocumented has no doc comment",
		"type T has no doc comment",
		"method T.M has no doc comment",
		"method T.PM has no doc comment",
		"var V has no doc comment",
		"var W has no doc comment",
		"func DirectiveOnly has no doc comment",
		"var Y has no doc comment",
		"type G has no doc comment",
		"method G.GM has no doc comment",
	}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Errorf("Dir found:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}

	// A package doc must open as go doc expects.
	write("a.go", "// This package is documented.\npackage a\n\n// F is documented.\nfunc F() {}\n")
	write("a_test.go", "package a\n\nfunc Example() {\n\t// Output:\n}\n")
	got, err = Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Message != `package doc comment does not start with "Package a "` {
		t.Errorf("Dir on a package doc that does not start with its name: %v", got)
	}
	write("a.go", "// Package main is a program.\npackage main\n\n// F is documented.\nfunc F() {}\n")
	got, err = Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Message != `package doc comment does not start with "Command "` {
		t.Errorf("Dir on a command whose doc does not start with Command: %v", got)
	}

	// Fixed, the package has no problems; a file kept out of the build is not looked at.
	write("script.go", "//go:build ignore\n\npackage main\n\nfunc Undocumented() {}\n")
	write("a.go", "// Package a\n// is documented over two lines.\npackage a\n\n// F is documented.\nfunc F() {}\n")
	write("a_test.go", "package a\n\nfunc Example() {\n\t// Output:\n}\n")
	got, err = Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("Dir on a documented package: %v", got)
	}
}
