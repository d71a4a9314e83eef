// Package gocql is the gocql v1.7.0 API implemented on cqlbridge's native core. An application
// moves by changing its import path from github.com/gocql/gocql to
// github.com/cqlbridge/cqlbridge/compat/gocql; the package name stays gocql.
package gocql
