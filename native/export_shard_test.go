package native

// ShardsCovered reports whether every pool of s holds a connection to each shard of its
// sharded node (false while a node is not known sharded), for the external tests.
func ShardsCovered(s *Session) bool {
	for _, p := range s.state.Load().pools {
		if sc := p.shards.Load(); sc == nil || sc.missing > 0 {
			return false
		}
	}
	return true
}
