module github.com/gocql/gocql

go 1.24

require github.com/cqlbridge/cqlbridge v0.0.0

require (
	github.com/golang/snappy v1.0.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.22 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)

replace github.com/cqlbridge/cqlbridge => ../../..
