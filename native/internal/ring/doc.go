// Package ring computes partition tokens with Cassandra's Murmur3 partitioner and maps tokens
// to replicas: an immutable ring of node tokens, per-keyspace replica sets (SimpleStrategy and
// NetworkTopologyStrategy) precomputed so that finding the replicas of a token allocates
// nothing, and routing keys built from partition key components.
package ring
