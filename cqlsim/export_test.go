package cqlsim

// ShardOf exposes shardOf to the package's external tests.
var ShardOf = shardOf
