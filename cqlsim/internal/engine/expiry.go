package engine

// maxExpiration is the latest expiry Cassandra 5.0 accepts in its default storage
// compatibility mode (CASSANDRA_4): 2038-01-19T03:14:06Z, in Unix seconds.
const maxExpiration = 2147483646

// checkExpiration refuses, as Cassandra 5.0 does under its default REJECT policy, a write
// whose TTL (the table's default one when defaultTTL) would expire after maxExpiration.
func checkExpiration(t *table, ttl int64, defaultTTL bool, now int64) error {
	if ttl <= 0 || now+ttl <= maxExpiration {
		return nil
	}
	what := ""
	if defaultTTL {
		what = "default "
	}
	return invalid("Request on table %s.%s with %sttl of %d seconds exceeds maximum supported expiration date of 2038-01-19T03:14:06+00:00. In order to avoid this use a lower TTL, change the expiration date overflow policy or upgrade to a version where this limitation is fixed. See CASSANDRA-14092 and CASSANDRA-14227 for more details.", t.ks, t.name, what, ttl)
}
