package cqlsim

// ShardOf exposes shardOf to the package's external tests.
var ShardOf = shardOf

// The tablet layout and the custom payload insertion, exposed to the package's external tests.
var (
	TabletIndex       = tabletIndex
	TabletRange       = tabletRange
	WithCustomPayload = withCustomPayload
)
