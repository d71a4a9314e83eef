package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// output is a result file (--json, --plot) claimed before the runs: a temporary file in the
// target's directory, renamed over the target once the results are written. So a path that
// cannot be written fails before minutes of benchmarking rather than after, and a run that
// fails or is interrupted leaves an earlier file of that name as it was.
type output struct {
	flag, path string
	tmp        *os.File
}

// claimOutput checks that path can be written (its directory exists and takes a new file; the
// path is not a directory) and claims a temporary file next to it. flag names the option in
// errors. An empty path (the option not given) claims nothing and returns nil.
func claimOutput(flag, path string) (*output, error) {
	if path == "" {
		return nil, nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s %s: is a directory", flag, path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("%s %s: cannot write there: %w", flag, path, err)
	}
	return &output{flag: flag, path: path, tmp: tmp}, nil
}

// commit writes data to the claimed file and renames it over the target.
func (o *output) commit(data []byte) error {
	name := o.tmp.Name()
	_, err := o.tmp.Write(data)
	if cerr := o.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o644) // CreateTemp makes it 0600
	}
	if err == nil {
		err = os.Rename(name, o.path)
	}
	if err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
	}
	return nil
}

// discard removes the claimed file; after commit, or on nil, it does nothing.
func (o *output) discard() {
	if o == nil {
		return
	}
	_ = o.tmp.Close()
	_ = os.Remove(o.tmp.Name()) // gone already after a commit
}
