module github.com/gocql/gocql

go 1.24

require (
	github.com/cqlbridge/cqlbridge v0.0.0
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed
)

require (
	github.com/bitly/go-hostpool v0.1.0 // indirect
	github.com/bmizerany/assert v0.0.0-20160611221934-b7ed37b82869 // indirect
	github.com/golang/snappy v1.0.0 // indirect
	github.com/kr/pretty v0.3.1 // indirect
	github.com/pierrec/lz4/v4 v4.1.22 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)

replace github.com/cqlbridge/cqlbridge => ../../..
