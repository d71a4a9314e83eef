package gocql_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// A node that answers a page with the paging state it was sent would serve that page for
// ever. gocql v1.7.0's Iter fetches it again and again (its rows without end); compat's ends
// after the pages the node sent, and Close reports an error wrapping
// native.ErrPagingStateRepeated (docs/deviations.md G60).
func TestPagingStateRepeatedUnlikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	host := sim.Addrs()[0]
	cqltest.Exec(t, host, "CREATE KEYSPACE stuck WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	cqltest.Exec(t, host, "CREATE TABLE stuck.t (k int, c int, PRIMARY KEY (k, c))")
	for c := range 10 {
		cqltest.Exec(t, host, "INSERT INTO stuck.t (k, c) VALUES (1, "+string(rune('0'+c))+")")
	}
	const bound = 30 // rows read before a driver counts as looping
	const stmt = "SELECT c FROM stuck.t WHERE k = 1"

	var legacyRows []int
	{
		c := gocqlv1.NewCluster(host)
		c.ProtoVersion, c.Timeout, c.Dialer = 4, 10*time.Second, &cqltest.StuckPager{}
		s, err := c.CreateSession()
		if err != nil {
			t.Fatal(err)
		}
		iter := s.Query(stmt).PageSize(3).Iter()
		var v int
		for len(legacyRows) <= bound && iter.Scan(&v) {
			legacyRows = append(legacyRows, v)
		}
		_ = iter.Close()
		s.Close()
	}
	if len(legacyRows) <= bound {
		t.Errorf("gocql read %v and stopped; the test expects it to read the repeated page again and again", legacyRows)
	}

	c := gocql.NewCluster(host)
	c.ProtoVersion, c.Timeout, c.Dialer = 4, 10*time.Second, &cqltest.StuckPager{}
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	iter := s.Query(stmt).PageSize(3).Iter()
	var rows []int
	var v int
	for len(rows) <= bound && iter.Scan(&v) {
		rows = append(rows, v)
	}
	err = iter.Close()
	if want := []int{0, 1, 2, 3, 4, 5}; !slices.Equal(rows, want) || !errors.Is(err, native.ErrPagingStateRepeated) {
		t.Errorf("compat read %v then %v, want %v then an error wrapping ErrPagingStateRepeated", rows, err, want)
	}
}
