package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

const (
	legacyPath = "github.com/gocql/gocql"
	compatPath = "github.com/cqlbridge/cqlbridge/compat/gocql"
	hostModule = "github.com/cqlbridge/cqlbridge"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command with its arguments and output streams, returning the
// exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("apicheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	allowMissing := fs.Bool("allow-missing", false, "exit 0 even when identifiers are missing or differ")
	doc := fs.String("doc", "docs/api-coverage.md", "coverage document to write, relative to the module root (empty: none)")
	annotationsFile := fs.String("annotations", "cmd/apicheck/annotations.txt", "annotations file, relative to the module root")
	dropin := fs.Bool("dropin", false, "regenerate the drop-in module "+dropinDir+" and exit")
	checkOnly := fs.Bool("check-dropin", false, "fail when the checked-in drop-in module is stale, and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(stderr, "apicheck:", err)
		return 2
	}
	pkgs, err := loadPackages(root, legacyPath, compatPath)
	if err != nil {
		fmt.Fprintln(stderr, "apicheck:", err)
		return 2
	}
	legacy, compat := pkgs[0], pkgs[1]

	switch {
	case *dropin:
		if err := writeDropin(root, hostModule, compat); err != nil {
			fmt.Fprintln(stderr, "apicheck:", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", dropinDir)
		return 0
	case *checkOnly:
		problems := checkDropin(root, hostModule, compat)
		for _, p := range problems {
			fmt.Fprintln(stdout, p)
		}
		if len(problems) > 0 {
			return 1
		}
		fmt.Fprintf(stdout, "%s is up to date\n", dropinDir)
		return 0
	}

	res := Compare(legacy, compat, "gocql")
	if *doc != "" {
		f, err := os.Open(filepath.Join(root, *annotationsFile))
		if err != nil {
			fmt.Fprintln(stderr, "apicheck:", err)
			return 2
		}
		ann, err := parseAnnotations(f)
		f.Close()
		if err != nil {
			fmt.Fprintln(stderr, "apicheck:", err)
			return 2
		}
		var md bytes.Buffer
		writeMarkdown(&md, res, "gocql v1.7.0 (`"+legacyPath+"`)", "compat/gocql (`"+compatPath+"`)", ann)
		if err := os.WriteFile(filepath.Join(root, *doc), md.Bytes(), 0o644); err != nil {
			fmt.Fprintln(stderr, "apicheck:", err)
			return 2
		}
	}
	writeText(stdout, res)
	if !*allowMissing && (res.Count(StatusMissing) > 0 || res.Count(StatusDiffering) > 0) {
		return 1
	}
	return 0
}
