package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompareFindsMissingAndDifferingIdentifiers(t *testing.T) {
	res := fixtureResult(t)
	got := map[string]Status{}
	for _, it := range res.Items {
		got[string(it.Kind)+" "+it.Name] = it.Status
	}
	want := map[string]Status{
		"type Consistency":                  StatusOK, // an alias of a type with the same structure
		"const One":                         StatusOK,
		"const Two":                         StatusMissing,
		"var ErrNotFound":                   StatusOK,
		"type Query":                        StatusOK,
		"field Query.Stmt":                  StatusOK,
		"field Query.Values":                StatusDiffering,
		"method Query.Exec":                 StatusMissing,
		"method Query.String":               StatusDiffering, // value receiver in gocql, pointer in compat
		"method Query.Bind":                 StatusOK,
		"type Observer":                     StatusOK,
		"interface method Observer.Observe": StatusOK,
		"interface method Observer.Flush":   StatusDiffering, // compat's interface demands more
		"func NewQuery":                     StatusDiffering, // variadic vs slice
		"func Parse":                        StatusOK,
		"type Key":                          StatusDiffering, // no longer comparable
		"field Key.ID":                      StatusOK,
		"type Pair":                         StatusDiffering, // same fields in another order
		"field Pair.Name":                   StatusOK,
		"field Pair.Value":                  StatusOK,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if res.Count(StatusMissing) != 2 || res.Count(StatusDiffering) != 6 {
		t.Errorf("missing %d, differing %d; want 2 and 6", res.Count(StatusMissing), res.Count(StatusDiffering))
	}
	var extras []string
	for _, it := range res.Extras {
		extras = append(extras, it.Name)
	}
	if diff := cmp.Diff([]string{"Extension", "Query.ExecAsync"}, extras); diff != "" {
		t.Errorf("extras (-want +got):\n%s", diff)
	}
}

func TestCompareNormalisesPackagePaths(t *testing.T) {
	res := fixtureResult(t)
	for _, it := range res.Items {
		if it.Name == "Query.Bind" {
			if it.Want != "Bind(...interface{}) *gocql.Query" || it.Got != it.Want {
				t.Errorf("Bind: want %q, got %q", it.Want, it.Got)
			}
			return
		}
	}
	t.Fatal("Query.Bind not compared")
}

func TestTextReportEndsWithSummary(t *testing.T) {
	var out bytes.Buffer
	writeText(&out, fixtureResult(t))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; last != "missing: 2, differing: 6" {
		t.Errorf("last line %q", last)
	}
	if !strings.Contains(out.String(), "missing const Two: const Two gocql.Consistency = 2") {
		t.Errorf("report does not name the missing constant:\n%s", out.String())
	}
}

func TestMarkdownReportHasATablePerKindAndTheAnnotations(t *testing.T) {
	ann, err := parseAnnotations(strings.NewReader("[unsupported]\nQuery.Exec | returns ErrUnsupported\n[deviations]\nParse | never panics\n[panics]\nNewQuery | panics on nil\n"))
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	writeMarkdown(&md, fixtureResult(t), "ref", "cand", ann)
	for _, want := range []string{
		"**missing: 2, differing: 6**", "## Types", "## Functions", "## Methods", "## Struct fields",
		"## Interface methods", "## Constants", "## Variables", "| Query.Exec | returns ErrUnsupported |",
		"| Parse | never panics |", "| NewQuery | panics on nil |", "| Two | missing | `const Two gocql.Consistency = 2` |  |", "## Extensions beyond gocql",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("coverage document lacks %q", want)
		}
	}
}

func TestParseAnnotationsRejectsMalformedLines(t *testing.T) {
	for _, bad := range []string{"Query.Exec | no section", "[unsupported]\nno separator", "[other]\n", "[deviations]\n | empty identifier"} {
		if _, err := parseAnnotations(strings.NewReader(bad)); err == nil {
			t.Errorf("parseAnnotations(%q) accepted it", bad)
		}
	}
}
