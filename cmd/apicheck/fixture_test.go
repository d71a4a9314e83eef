package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

// checkSource type-checks a one-file package from source.
func checkSource(t testing.TB, path, src string) *types.Package {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "fixture.go", src, 0)
	if err != nil {
		t.Fatalf("parsing fixture %s: %v", path, err)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check(path, fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatalf("type-checking fixture %s: %v", path, err)
	}
	return pkg
}

// The reference fixture plays gocql.
const refFixture = `package gocql

type Consistency uint16

const (
	One Consistency = 1
	Two Consistency = 2
)

var ErrNotFound error

type Query struct {
	Stmt   string
	Values []interface{}
	hidden int
}

func (q *Query) Exec() error    { return nil }
func (q Query) String() string  { return q.Stmt }
func (q *Query) Bind(v ...interface{}) *Query { return q }

type Observer interface {
	Observe(q *Query)
}

type unexported int

type Key struct{ ID int }

type Pair struct {
	Name  string
	Value int
}

func NewQuery(stmt string, values ...interface{}) *Query { return nil }
func Parse(s string) (Consistency, error)                { return 0, nil }
`

// The candidate fixture lacks Two and Query.Exec, and declares Values,
// String, NewQuery and Observer differently.
const candFixture = `package gocql

type consistency uint16

type Consistency = consistency

const One Consistency = 1

var ErrNotFound error

type Query struct {
	Stmt   string
	Values []string
	extra  int
}

func (q *Query) String() string              { return q.Stmt }
func (q *Query) Bind(v ...interface{}) *Query { return q }
func (q *Query) ExecAsync() <-chan error     { return nil }

type Observer interface {
	Observe(q *Query)
	Flush()
}

type Pair struct {
	Value int
	Name  string
}

type Key struct {
	ID   int
	tags []string
}

func NewQuery(stmt string, values []interface{}) *Query { return nil }
func Parse(s string) (Consistency, error)              { return 0, nil }
func Extension() {}
`

func fixtureResult(t *testing.T) Result {
	ref := checkSource(t, "example.com/ref/gocql", refFixture)
	cand := checkSource(t, "example.com/cand/gocql", candFixture)
	return Compare(ref, cand, "gocql")
}
