package gocql

import "github.com/cqlbridge/cqlbridge/native"

func nativeQuery(cql string) native.Statement { return native.Query(cql) }
