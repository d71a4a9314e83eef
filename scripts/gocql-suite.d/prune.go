//go:build ignore

// prune makes gocql v1.7.0's test files build against the drop-in module: in a directory holding
// the drop-in's sources (package gocql) and gocql's *_test.go files, it type-checks package gocql
// with its internal test files, and package gocql_test, under the build tags given, and removes
// every top-level declaration of a test file that does not type-check (most name gocql's
// unexported identifiers: s.control, newFramer, ...), then the imports nothing uses any more, and
// checks again until both packages type-check. The test files are rewritten in place; the names
// of the removed Test and Example functions are written to the -pruned file, one a line, and
// with -why the type error that removed each declaration to that file. A file named
// gocqlsuite_*_test.go is the suite's own (stand-ins for gocql helpers that the drop-in lacks):
// it counts as part of the drop-in, is neither rewritten nor pruned.
//
// Before pruning it makes these rewrites, which the caller applies to both runs by using the
// same files: `X.control.awaitSchemaAgreement()` (common_test.go's table and keyspace helpers,
// which nearly every integration test calls) becomes gocql's exported
// `X.AwaitSchemaAgreement(context.Background())`; `X.cfg.ProtoVersion` (the negotiated
// protocol version, which about 45 tests read to skip what an old one lacks) becomes
// `(*flagProto)`, the -proto flag, which the suite sets; gocql's constants protoVersion1 to
// protoVersion5 become 1 to 5; a NativeType literal with keyed (unexported) fields becomes the
// call of NewNativeType with the same values; the examples' contact point "localhost:9042"
// becomes -host; and each example's closing comment, which lists what it prints, gets an
// "Output:" line so that `go test` runs the example and compares its output (an example without
// one gets an empty "Output:", so that it runs and must print nothing).
//
//	go run prune.go -dir DIR -tags all -host 127.0.0.1:9042 -pruned pruned.txt [-why why.txt]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/format"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

const gocqlPath = "github.com/gocql/gocql"

// protoCfg and protoConst are the text rewrites of the protocol version the tests ask for:
// the session's (or connection's) negotiated version, which the suite sets with -proto, and
// gocql's unexported constants protoVersion1 to protoVersion5.
var (
	protoCfg   = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*\.cfg\.ProtoVersion\b`)
	protoConst = regexp.MustCompile(`\bprotoVersion([1-5])\b`)
)

// nativeTypeLit is a NativeType literal with keyed fields, which are unexported (proto, typ,
// custom): nativeTypeCall makes it the equivalent call of the exported NewNativeType.
var nativeTypeLit = regexp.MustCompile(`\bNativeType\{([^{}]+)\}`)

func nativeTypeCall(lit []byte) []byte {
	fields := map[string]string{"proto": "0", "typ": "0", "custom": `""`}
	body := nativeTypeLit.FindSubmatch(lit)[1]
	for _, kv := range strings.Split(string(body), ",") {
		k, v, ok := strings.Cut(kv, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "" && v == "" {
			continue // a trailing comma
		}
		if _, known := fields[k]; !ok || !known || v == "" {
			return lit
		}
		fields[k] = v
	}
	return []byte(fmt.Sprintf("NewNativeType(%s, %s, %s)", fields["proto"], fields["typ"], fields["custom"]))
}

// why collects, for -why, the type errors that removed each declaration.
var why []string

var (
	flagDir    = flag.String("dir", ".", "directory of package gocql (drop-in sources and gocql's test files)")
	flagTags   = flag.String("tags", "all", "comma-separated build tags")
	flagHost   = flag.String("host", "127.0.0.1:9042", "host:port the examples connect to")
	flagPruned = flag.String("pruned", "", "file to write the pruned Test and Example names to")
	flagWhy    = flag.String("why", "", "file to write each removed declaration's first type error to")
)

type file struct {
	name string
	ast  *ast.File
	test bool
}

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "prune:", err)
		os.Exit(2)
	}
}

func run() error {
	ctx := build.Default
	ctx.BuildTags = strings.Split(*flagTags, ",")
	ents, err := os.ReadDir(*flagDir)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	var files []*file
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		if ok, err := ctx.MatchFile(*flagDir, e.Name()); err != nil || !ok {
			continue
		}
		src, err := os.ReadFile(filepath.Join(*flagDir, e.Name()))
		if err != nil {
			return err
		}
		if strings.HasSuffix(e.Name(), "_test.go") && !strings.HasPrefix(e.Name(), "gocqlsuite_") {
			src = protoCfg.ReplaceAll(src, []byte("(*flagProto)"))
			src = protoConst.ReplaceAll(src, []byte("$1"))
			src = nativeTypeLit.ReplaceAllFunc(src, nativeTypeCall)
		}
		f, err := parser.ParseFile(fset, filepath.Join(*flagDir, e.Name()), src, parser.ParseComments)
		if err != nil {
			return err
		}
		// The suite's own support file (gocqlsuite_*) counts as the drop-in's.
		test := strings.HasSuffix(e.Name(), "_test.go") && !strings.HasPrefix(e.Name(), "gocqlsuite_")
		files = append(files, &file{e.Name(), f, test})
	}
	// Non-test files first: a test declaration that clashes with one of the drop-in is then the
	// one reported as redeclared.
	sort.SliceStable(files, func(i, j int) bool { return !files[i].test && files[j].test })
	for _, f := range files {
		if f.test {
			rewrite(f.ast)
		}
	}
	exports, err := exportData(files)
	if err != nil {
		return err
	}
	var pruned []string
	for round := 1; ; round++ {
		removed, err := pruneRound(fset, files, exports, &pruned)
		if err != nil {
			return err
		}
		if !removed {
			break
		}
		if round > 50 {
			return fmt.Errorf("still pruning after %d rounds", round)
		}
	}
	for _, f := range files {
		if !f.test {
			continue
		}
		var buf bytes.Buffer
		if err := format.Node(&buf, fset, f.ast); err != nil {
			return fmt.Errorf("%s: %v", f.name, err)
		}
		if err := os.WriteFile(filepath.Join(*flagDir, f.name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if *flagWhy != "" {
		if err := os.WriteFile(*flagWhy, []byte(strings.Join(why, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	sort.Strings(pruned)
	if *flagPruned != "" {
		return os.WriteFile(*flagPruned, []byte(strings.Join(pruned, "\n")+"\n"), 0o644)
	}
	return nil
}

// rewrite applies the syntax-tree rewrites of the package comment to a test file (the text
// rewrites come before parsing).
func rewrite(f *ast.File) {
	needContext := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "awaitSchemaAgreement" || len(n.Args) != 0 {
				return true
			}
			inner, ok := sel.X.(*ast.SelectorExpr)
			if !ok || inner.Sel.Name != "control" {
				return true
			}
			sel.X = inner.X
			sel.Sel = ast.NewIdent("AwaitSchemaAgreement")
			n.Args = []ast.Expr{&ast.CallExpr{Fun: &ast.SelectorExpr{X: ast.NewIdent("context"), Sel: ast.NewIdent("Background")}}}
			needContext = true
		case *ast.BasicLit:
			if n.Kind == token.STRING && n.Value == `"localhost:9042"` {
				n.Value = strconv.Quote(*flagHost)
			}
		}
		return true
	})
	if needContext && !imports(f, "context") {
		addImport(f, "context")
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Example") || fn.Body == nil {
			continue
		}
		// The last comment group of the body, when nothing follows it, lists the output.
		var last *ast.CommentGroup
		for _, cg := range f.Comments {
			if cg.Pos() > fn.Body.Lbrace && cg.End() < fn.Body.Rbrace {
				last = cg
			}
		}
		if last != nil && strings.Contains(last.Text(), "Output:") {
			continue
		}
		if n := len(fn.Body.List); last == nil || n > 0 && fn.Body.List[n-1].End() > last.Pos() {
			// It lists no output (ExampleUDTMarshaler prints nothing): an empty
			// "Output:" has it run and print nothing.
			cg := &ast.CommentGroup{List: []*ast.Comment{{Slash: fn.Body.Rbrace - 1, Text: "// Output:"}}}
			i := sort.Search(len(f.Comments), func(i int) bool { return f.Comments[i].Pos() > cg.Pos() })
			f.Comments = append(f.Comments[:i], append([]*ast.CommentGroup{cg}, f.Comments[i:]...)...)
			continue
		}
		if strings.HasPrefix(last.List[0].Text, "//") {
			last.List[0].Text = "// Output:\n" + last.List[0].Text
		}
	}
}

func imports(f *ast.File, path string) bool {
	for _, s := range f.Imports {
		if p, _ := strconv.Unquote(s.Path.Value); p == path {
			return true
		}
	}
	return false
}

func addImport(f *ast.File, path string) {
	spec := &ast.ImportSpec{Path: &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(path)}}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			if !g.Lparen.IsValid() {
				g.Lparen = g.Pos()
				g.Rparen = g.End()
			}
			g.Specs = append(g.Specs, spec)
			f.Imports = append(f.Imports, spec)
			return
		}
	}
	g := &ast.GenDecl{Tok: token.IMPORT, Specs: []ast.Spec{spec}}
	f.Decls = append([]ast.Decl{g}, f.Decls...)
	f.Imports = append(f.Imports, spec)
}

// exportData lists, with go list -export, the export data of every package the files import
// (and their dependencies), for the type checker's importer.
func exportData(files []*file) (map[string]string, error) {
	seen := map[string]bool{}
	var paths []string
	for _, f := range files {
		for _, s := range f.ast.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			if p == gocqlPath || strings.HasPrefix(p, gocqlPath+"/") || seen[p] {
				continue
			}
			seen[p] = true
			paths = append(paths, p)
		}
	}
	args := append([]string{"list", "-e", "-export", "-deps", "-tags", *flagTags, "-f", "{{.ImportPath}}\t{{.Export}}"}, paths...)
	cmd := exec.Command("go", args...)
	cmd.Dir = *flagDir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if p, exp, ok := strings.Cut(line, "\t"); ok && exp != "" {
			m[p] = exp
		}
	}
	return m, nil
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// pruneRound type-checks package gocql (and then gocql_test) and removes what does not
// type-check; it reports whether it removed anything.
func pruneRound(fset *token.FileSet, files []*file, exports map[string]string, pruned *[]string) (bool, error) {
	gc := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		exp, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exp)
	})
	var internal, external []*ast.File
	for _, f := range files {
		if f.ast.Name.Name == "gocql" {
			internal = append(internal, f.ast)
		} else {
			external = append(external, f.ast)
		}
	}
	var errs []types.Error
	conf := types.Config{Importer: gc, Error: func(err error) { errs = append(errs, err.(types.Error)) }}
	pkg, _ := conf.Check(gocqlPath, fset, internal, nil)
	if len(errs) == 0 && len(external) > 0 {
		conf.Importer = importerFunc(func(path string) (*types.Package, error) {
			if path == gocqlPath {
				return pkg, nil
			}
			return gc.Import(path)
		})
		conf.Check(gocqlPath+"_test", fset, external, nil)
	}
	if len(errs) == 0 {
		return false, nil
	}
	removed := false
	for _, e := range errs {
		f := fileAt(files, e.Pos)
		if f == nil || !f.test {
			// An error in the drop-in's own source: a test declaration clashes with it.
			name := strings.Fields(e.Msg)
			if len(name) > 0 && strings.Contains(e.Msg, "redeclared") {
				if removeNamed(files, name[0], pruned) {
					removed = true
					continue
				}
			}
			return false, fmt.Errorf("%s: %s (in the drop-in's source)", fset.Position(e.Pos), e.Msg)
		}
		if removeImportAt(f, e.Pos) || removeDeclAt(f, e.Pos, pruned) {
			removed = true
			why = append(why, fmt.Sprintf("%s: %s", fset.Position(e.Pos), e.Msg))
		}
	}
	if !removed {
		return false, fmt.Errorf("%s: %s: cannot prune", fset.Position(errs[0].Pos), errs[0].Msg)
	}
	return true, nil
}

func fileAt(files []*file, pos token.Pos) *file {
	for _, f := range files {
		if f.ast.FileStart <= pos && pos <= f.ast.FileEnd {
			return f
		}
	}
	return nil
}

// removeImportAt removes the import spec at pos, if there is one.
func removeImportAt(f *file, pos token.Pos) bool {
	for _, d := range f.ast.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT || pos < g.Pos() || pos > g.End() {
			continue
		}
		for i, s := range g.Specs {
			if s.Pos() <= pos && pos <= s.End() {
				g.Specs = append(g.Specs[:i:i], g.Specs[i+1:]...)
				is := s.(*ast.ImportSpec)
				for j, x := range f.ast.Imports {
					if x == is {
						f.ast.Imports = append(f.ast.Imports[:j:j], f.ast.Imports[j+1:]...)
						break
					}
				}
				dropComments(f.ast, s.Pos(), s.End())
				return true
			}
		}
	}
	return false
}

// removeDeclAt removes the top-level declaration (or the spec of a grouped one) at pos.
func removeDeclAt(f *file, pos token.Pos, pruned *[]string) bool {
	for i, d := range f.ast.Decls {
		if pos < d.Pos() || pos > d.End() {
			continue
		}
		if g, ok := d.(*ast.GenDecl); ok && len(g.Specs) > 1 {
			for j, s := range g.Specs {
				if s.Pos() <= pos && pos <= s.End() {
					g.Specs = append(g.Specs[:j:j], g.Specs[j+1:]...)
					dropComments(f.ast, s.Pos(), s.End())
					return true
				}
			}
		}
		record(d, pruned)
		f.ast.Decls = append(f.ast.Decls[:i:i], f.ast.Decls[i+1:]...)
		start := d.Pos()
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Doc != nil {
			start = fn.Doc.Pos()
		}
		if g, ok := d.(*ast.GenDecl); ok && g.Doc != nil {
			start = g.Doc.Pos()
		}
		dropComments(f.ast, start, d.End())
		return true
	}
	return false
}

// removeNamed removes the test files' top-level declaration named name.
func removeNamed(files []*file, name string, pruned *[]string) bool {
	for _, f := range files {
		if !f.test {
			continue
		}
		for _, d := range f.ast.Decls {
			var names []*ast.Ident
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names = append(names, d.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names = append(names, s.Name)
					case *ast.ValueSpec:
						names = append(names, s.Names...)
					}
				}
			}
			for _, id := range names {
				if id.Name == name {
					return removeDeclAt(f, id.Pos(), pruned)
				}
			}
		}
	}
	return false
}

func record(d ast.Decl, pruned *[]string) {
	fn, ok := d.(*ast.FuncDecl)
	if !ok || fn.Recv != nil {
		return
	}
	for _, p := range []string{"Test", "Example"} {
		if strings.HasPrefix(fn.Name.Name, p) {
			*pruned = append(*pruned, fn.Name.Name)
		}
	}
}

func dropComments(f *ast.File, start, end token.Pos) {
	kept := f.Comments[:0]
	for _, cg := range f.Comments {
		if cg.Pos() >= start && cg.End() <= end {
			continue
		}
		kept = append(kept, cg)
	}
	f.Comments = kept
}
