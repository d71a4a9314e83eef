module github.com/cqlbridge/cqlbridge

go 1.24

require (
	github.com/HdrHistogram/hdrhistogram-go v1.1.2
	github.com/datastax/go-cassandra-native-protocol v0.0.0-20260130100129-9d5b43677a33
	github.com/gocql/gocql v1.7.0
	github.com/golang/snappy v1.0.0
	github.com/google/go-cmp v0.7.0
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed
	github.com/pierrec/lz4/v4 v4.1.22
	github.com/rs/zerolog v1.20.0
	go.uber.org/goleak v1.3.0
	gopkg.in/inf.v0 v0.9.1
)
