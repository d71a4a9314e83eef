package main

import "github.com/cqlbridge/cqlbridge/compat/gocql"

// asyncPart will add callbacks on a future (Query.ExecAsync) once package future is wired
// into compat/gocql.
func asyncPart(*gocql.Session, string) error { return nil }
