package gocql_test

import (
	"testing"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

// Which built-in policies are HostTierers, as an application's type assertion sees them: in
// gocql v1.7.0 RackAwareRoundRobinPolicy is and DCAwareRoundRobinPolicy is not (compat's
// DC-aware policy was, as it shares the rack-aware one's implementation).
func TestHostTiererLikeGocql(t *testing.T) {
	for _, c := range []struct {
		name   string
		legacy gocqlv1.HostSelectionPolicy
		compat gocql.HostSelectionPolicy
	}{
		{"dc aware", gocqlv1.DCAwareRoundRobinPolicy("dc1"), gocql.DCAwareRoundRobinPolicy("dc1")},
		{"rack aware", gocqlv1.RackAwareRoundRobinPolicy("dc1", "r1"), gocql.RackAwareRoundRobinPolicy("dc1", "r1")},
		{"round robin", gocqlv1.RoundRobinHostPolicy(), gocql.RoundRobinHostPolicy()},
		{"token aware", gocqlv1.TokenAwareHostPolicy(gocqlv1.RoundRobinHostPolicy()), gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())},
	} {
		_, legacy := c.legacy.(gocqlv1.HostTierer)
		_, shim := c.compat.(gocql.HostTierer)
		if legacy != shim {
			t.Errorf("%s: a HostTierer in gocql %v, in compat %v", c.name, legacy, shim)
		}
	}
}
