package gocql

import "github.com/cqlbridge/cqlbridge/internal/murmur3"

const murmur3Partitioner = "org.apache.cassandra.dht.Murmur3Partitioner"

// murmur3Token is the Murmur3Partitioner token of a partition key (package internal/murmur3).
func murmur3Token(data []byte) int64 { return murmur3.Token(data) }
