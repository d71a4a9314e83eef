module github.com/gocql/gocql

go 1.24

require (
	github.com/cqlbridge/cqlbridge v0.0.0
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed
)

require (
	github.com/bitly/go-hostpool v0.1.0 // indirect
	github.com/bmizerany/assert v0.0.0-20160611221934-b7ed37b82869 // indirect
	github.com/datastax/go-cassandra-native-protocol v0.0.0-20260130100129-9d5b43677a33
	github.com/golang/snappy v1.0.0 // indirect
	github.com/google/go-cmp v0.7.0
	github.com/kr/pretty v0.3.1 // indirect
	github.com/kr/text v0.2.0
	github.com/pierrec/lz4/v4 v4.1.22 // indirect
	github.com/rogpeppe/go-internal v1.9.0
	go.uber.org/goleak v1.3.0
	gopkg.in/inf.v0 v0.9.1 // indirect
)

replace github.com/cqlbridge/cqlbridge => ../../..
