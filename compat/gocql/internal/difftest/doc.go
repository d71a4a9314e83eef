// Package difftest holds the differential tests that compare compat/gocql's
// Marshal and Unmarshal with gocql v1.7.0's, byte for byte and error for
// error, over every TypeInfo and the Go types gocql accepts. It has no
// exported API; only its tests import github.com/gocql/gocql, so the drop-in
// module that replaces that path never sees the import.
package difftest
