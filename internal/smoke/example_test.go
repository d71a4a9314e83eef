package smoke

import (
	"fmt"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// Example does what the smoke tests do, in short: the legacy driver writes a row and reads it
// back, on the node named by CQL_HOSTS or, when it is unset, on an embedded cqlsim node.
func Example() {
	hosts := cqltest.HostsFromEnv()
	if len(hosts) == 0 {
		var err error
		if hosts, err = cqltest.EmbeddedHosts(); err != nil {
			log.Fatal(err)
		}
	}
	ks := fmt.Sprintf("smoke_example_%d", time.Now().UnixNano())
	if err := cqltest.ExecErr(hosts[0], "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"); err != nil {
		log.Fatal(err)
	}
	defer cqltest.ExecErr(hosts[0], "DROP KEYSPACE IF EXISTS "+ks)

	cluster := gocql.NewCluster(hosts...)
	cluster.Keyspace = ks
	cluster.Consistency = gocql.One
	cluster.Timeout = 20 * time.Second
	s, err := cluster.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if err := s.Query("CREATE TABLE kv (k int PRIMARY KEY, v text)").Exec(); err != nil {
		log.Fatal(err)
	}
	if err := s.Query("INSERT INTO kv (k, v) VALUES (?, ?)", 1, "one").Exec(); err != nil {
		log.Fatal(err)
	}
	var v string
	if err := s.Query("SELECT v FROM kv WHERE k = ?", 1).Scan(&v); err != nil {
		log.Fatal(err)
	}
	fmt.Println("read back:", v)
	// Output:
	// read back: one
}
