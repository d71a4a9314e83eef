package doccheck

import (
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Problem is one broken rule: where, and what.
type Problem struct {
	Pos     string // file:line, or the package's directory for package-wide problems
	Message string
}

// String formats the problem as "pos: message".
func (p Problem) String() string { return p.Pos + ": " + p.Message }

// Dir checks the package in one directory: its non-test files and its test files (an external
// _test package counts as the same package). A directory without Go files has no problems.
func Dir(dir string) ([]Problem, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files, tests []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if ignored(f) {
			continue
		}
		if strings.HasSuffix(name, "_test.go") {
			tests = append(tests, f)
		} else {
			files = append(files, f)
		}
	}
	if len(files) == 0 && len(tests) == 0 {
		return nil, nil
	}
	var out []Problem
	// A package of test files only (an integration suite) carries its doc comment in them.
	docFiles := files
	if len(files) == 0 {
		docFiles = tests
	}
	if doc, name, ok := packageDoc(docFiles); !ok {
		out = append(out, Problem{Pos: dir, Message: "no package doc comment"})
	} else if want := docOpening(name); !strings.HasPrefix(doc, want) {
		out = append(out, Problem{Pos: dir, Message: fmt.Sprintf("package doc comment does not start with %q", want)})
	}
	if !hasExample(tests) {
		out = append(out, Problem{Pos: dir, Message: "no runnable Example (one with an output comment) in the package's tests"})
	}
	for _, f := range files {
		out = append(out, undocumented(fset, f)...)
	}
	return out, nil
}

// Module checks every package under root, skipping testdata, hidden and node_modules
// directories and nested modules (directories with a go.mod of their own). Problems are sorted
// by position.
func Module(root string) ([]Problem, error) {
	var out []Problem
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root {
			if name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		ps, err := Dir(path)
		if err != nil {
			return fmt.Errorf("doccheck: %s: %w", path, err)
		}
		out = append(out, ps...)
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
	return out, err
}

// ignored reports whether f is kept out of every build by a "//go:build ignore" style
// constraint (a script run with go run, not part of the package). Files for other platforms
// are checked like the rest.
func ignored(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() >= f.Package {
			break
		}
		for _, c := range cg.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				return false
			}
			mentions := false
			expr.Eval(func(tag string) bool {
				mentions = mentions || tag == "ignore"
				return true
			})
			return mentions
		}
	}
	return false
}

// packageDoc returns the text of the first package doc comment of files that has any, its
// white space runs made single spaces and a space at its end, and the package name its file
// declares.
func packageDoc(files []*ast.File) (doc, name string, ok bool) {
	for _, f := range files {
		if f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != "" {
			return strings.Join(strings.Fields(f.Doc.Text()), " ") + " ", f.Name.Name, true
		}
	}
	return "", "", false
}

// docOpening is how a package doc comment starts, as go doc and pkg.go.dev expect: "Package
// name " for a library (a package of tests only, as its files name it), "Command " for a
// program.
func docOpening(name string) string {
	if name == "main" {
		return "Command "
	}
	return "Package " + name + " "
}

// hasExample reports whether the test files hold a runnable Example: one with an output
// comment, which go test runs and checks (an Example without one is only compiled).
func hasExample(tests []*ast.File) bool {
	for _, ex := range doc.Examples(tests...) {
		if ex.Output != "" || ex.EmptyOutput {
			return true
		}
	}
	return false
}

// undocumented returns the exported declarations of f without a doc comment: functions,
// methods of exported types, types, and constants and variables (a doc comment on their group
// covers the group's names). A comment made of directives only (//go:noinline, //lint:ignore)
// is no doc comment: go doc shows nothing for it.
func undocumented(fset *token.FileSet, f *ast.File) []Problem {
	var out []Problem
	report := func(pos token.Pos, what string) {
		out = append(out, Problem{Pos: fset.Position(pos).String(), Message: what + " has no doc comment"})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || hasText(d.Doc) {
				continue
			}
			if d.Recv == nil {
				report(d.Pos(), "func "+d.Name.Name)
			} else if recv := receiverType(d.Recv); ast.IsExported(recv) {
				report(d.Pos(), "method "+recv+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && !hasText(s.Doc) && !hasText(d.Doc) {
						report(s.Pos(), "type "+s.Name.Name)
					}
				case *ast.ValueSpec:
					if hasText(s.Doc) || hasText(d.Doc) || hasText(s.Comment) {
						continue
					}
					for _, n := range s.Names {
						if n.IsExported() {
							report(n.Pos(), d.Tok.String()+" "+n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// hasText reports whether a comment group has text besides directives.
func hasText(cg *ast.CommentGroup) bool {
	return cg != nil && strings.TrimSpace(cg.Text()) != ""
}

// receiverType returns the name of a method's receiver type, without pointer and type
// parameters.
func receiverType(recv *ast.FieldList) string {
	if recv == nil || len(recv.List) == 0 {
		return ""
	}
	t := recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
