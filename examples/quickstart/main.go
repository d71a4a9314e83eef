// Command quickstart is a gocql-style program running on cqlbridge: the import of
// github.com/gocql/gocql is swapped for compat/gocql and nothing else changes. It also makes
// one call through the native API on the same session.
//
// By default it starts an embedded cqlsim server; set CQL_HOSTS (for example 127.0.0.1) to run
// it against a real cluster instead:
//
//	go run ./examples/quickstart
//	CQL_HOSTS=127.0.0.1 go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/cqlsim"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	hosts, stop, err := servers()
	if err != nil {
		return err
	}
	defer stop()

	// Plain gocql code from here on.
	cluster := gocql.NewCluster(hosts...)
	cluster.Consistency = gocql.One
	cluster.Timeout = 10 * time.Second
	session, err := cluster.CreateSession()
	if err != nil {
		return fmt.Errorf("connecting to %v: %w", hosts, err)
	}
	defer session.Close()

	ks := fmt.Sprintf("quickstart_%d", time.Now().UnixNano()%1_000_000)
	for _, stmt := range []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".tweets (timeline text, id int, text text, PRIMARY KEY (timeline, id))",
	} {
		if err := session.Query(stmt).Exec(); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	defer session.Query("DROP KEYSPACE " + ks).Exec()

	for i := 1; i <= 5; i++ {
		err := session.Query("INSERT INTO "+ks+".tweets (timeline, id, text) VALUES (?, ?, ?)",
			"me", i, fmt.Sprintf("hello #%d", i)).Exec()
		if err != nil {
			return fmt.Errorf("insert %d: %w", i, err)
		}
	}

	var text string
	if err := session.Query("SELECT text FROM "+ks+".tweets WHERE timeline = ? AND id = ?", "me", 3).Scan(&text); err != nil {
		return fmt.Errorf("select one: %w", err)
	}
	fmt.Println("tweet 3:", text)

	// Paging in place, two rows per page.
	iter := session.Query("SELECT id, text FROM "+ks+".tweets WHERE timeline = ?", "me").PageSize(2).Iter()
	var id int
	for iter.Scan(&id, &text) {
		fmt.Printf("  %d %s (page of %d rows)\n", id, text, iter.NumRows())
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("iterating: %w", err)
	}

	if err := asyncPart(session, ks); err != nil {
		return err
	}

	// One call through the native API on the same connections.
	res, err := session.Native().Execute(context.Background(),
		nativeCount(ks))
	if err != nil {
		return fmt.Errorf("native count: %w", err)
	}
	var n int64
	if row, ok := res.First(); ok {
		if err := row.Scan(&n); err != nil {
			return fmt.Errorf("native scan: %w", err)
		}
	}
	fmt.Println("native count:", n)
	return nil
}

// servers returns the contact points: CQL_HOSTS when set, else an embedded cqlsim node.
func servers() ([]string, func(), error) {
	if env := strings.TrimSpace(os.Getenv("CQL_HOSTS")); env != "" {
		return strings.Split(env, ","), func() {}, nil
	}
	sim, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("starting the embedded cqlsim: %w", err)
	}
	fmt.Fprintln(os.Stderr, "using an embedded cqlsim at", sim.Addrs())
	return sim.Addrs(), func() { sim.Close() }, nil
}
