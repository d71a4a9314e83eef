package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Annotation documents one behaviour of an identifier.
type Annotation struct {
	Identifier  string
	Description string
}

// Annotations are the hand-written parts of the coverage document.
type Annotations struct {
	// Unsupported lists behaviours that return a clear error instead of
	// being supported.
	Unsupported []Annotation
	// Deviations lists deliberate differences from gocql v1.7.0.
	Deviations []Annotation
	// Panics lists the panics kept because gocql v1.7.0 documents them as
	// the function's behaviour (each has a non-panicking alternative).
	Panics []Annotation
}

// parseAnnotations reads the annotations file: "[unsupported]",
// "[deviations]" and "[panics]" section headers, then "Identifier | description" lines;
// blank lines and lines starting with # are ignored.
func parseAnnotations(r io.Reader) (Annotations, error) {
	var a Annotations
	var section *[]Annotation
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case line == "[unsupported]":
			section = &a.Unsupported
			continue
		case line == "[deviations]":
			section = &a.Deviations
			continue
		case line == "[panics]":
			section = &a.Panics
			continue
		case strings.HasPrefix(line, "["):
			return a, fmt.Errorf("annotations line %d: unknown section %s", n, line)
		case section == nil:
			return a, fmt.Errorf("annotations line %d: entry before any section header", n)
		}
		ident, desc, ok := strings.Cut(line, "|")
		if !ok || strings.TrimSpace(ident) == "" || strings.TrimSpace(desc) == "" {
			return a, fmt.Errorf("annotations line %d: want \"Identifier | description\", got %q", n, line)
		}
		*section = append(*section, Annotation{Identifier: strings.TrimSpace(ident), Description: strings.TrimSpace(desc)})
	}
	return a, sc.Err()
}
