package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
)

func mustCheck(path, src string) *types.Package {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		panic(err)
	}
	pkg, err := (&types.Config{Importer: importer.ForCompiler(fset, "source", nil)}).Check(path, fset, []*ast.File{f}, nil)
	if err != nil {
		panic(err)
	}
	return pkg
}

// Compare a package with a reference and print the gaps.
func Example_compare() {
	ref := mustCheck("example.com/ref/gocql", `package gocql
type Query struct{ Stmt string }
func (q *Query) Exec() error { return nil }
func NewQuery(stmt string) *Query { return nil }`)
	cand := mustCheck("example.com/cand/gocql", `package gocql
type Query struct{ Stmt int }
func NewQuery(stmt string) *Query { return nil }`)
	writeText(os.Stdout, Compare(ref, cand, "gocql"))
	// Output:
	// missing method Query.Exec: Exec() error
	// differing field Query.Stmt: gocql "Stmt string", compat "Stmt int"
	// missing: 1, differing: 1
}
