package native_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// Connecting, preparing statements and reading rows, against an embedded cqlsim server (use
// your cluster's addresses instead of cl.Addrs()).
func Example() {
	cl, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()

	ctx := context.Background()
	sess, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs()})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()

	for _, ddl := range []string{
		"CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE shop.items (id int PRIMARY KEY, name text)",
	} {
		if _, err := sess.Execute(ctx, native.Query(ddl)); err != nil {
			log.Fatal(err)
		}
	}
	ins, err := sess.Prepare(ctx, "INSERT INTO shop.items (id, name) VALUES (?, ?)")
	if err != nil {
		log.Fatal(err)
	}
	for i, name := range []string{"apple", "pear", "plum"} {
		if _, err := sess.Execute(ctx, ins.Bind(i, name).WithIdempotent(true)); err != nil {
			log.Fatal(err)
		}
	}

	sel, err := sess.Prepare(ctx, "SELECT id, name FROM shop.items WHERE id = ?")
	if err != nil {
		log.Fatal(err)
	}
	res, err := sess.Execute(ctx, sel.Bind(1))
	if err != nil {
		log.Fatal(err)
	}
	row, _ := res.First()
	var id int
	var name string
	if err := row.Scan(&id, &name); err != nil {
		log.Fatal(err)
	}
	fmt.Println(id, name)
	// Output: 1 pear
}

// Iterating over every row of a query, two rows per page, with Session.Iter.
func ExampleSession_Iter() {
	cl, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	sess, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs()})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	for _, cql := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.events (day int, seq int, what text, PRIMARY KEY (day, seq))",
		"INSERT INTO ks.events (day, seq, what) VALUES (1, 1, 'open')",
		"INSERT INTO ks.events (day, seq, what) VALUES (1, 2, 'read')",
		"INSERT INTO ks.events (day, seq, what) VALUES (1, 3, 'close')",
	} {
		if _, err := sess.Execute(ctx, native.Query(cql)); err != nil {
			log.Fatal(err)
		}
	}
	stmt := native.Query("SELECT seq, what FROM ks.events WHERE day = ?", int32(1)).WithPageSize(2)
	for row, err := range sess.Iter(ctx, stmt) {
		if err != nil {
			log.Fatal(err)
		}
		seq, _ := native.Get[int](row, 0)
		what, _ := native.Get[string](row, 1)
		fmt.Println(seq, what)
	}
	// Output:
	// 1 open
	// 2 read
	// 3 close
}

// Statements are values: each With method returns a modified copy.
func ExampleStatement() {
	base := native.Query("SELECT name FROM items WHERE id = ?", 7)
	strong := base.WithConsistency(native.Quorum).WithTimeout(2 * time.Second)

	c, set := base.Consistency()
	fmt.Println(c, set)
	c, set = strong.Consistency()
	fmt.Println(c, set)
	// Output:
	// ANY false
	// QUORUM true
}

// Many requests in flight from one goroutine: start them all, then wait for each.
func ExampleSession_ExecuteAsync() {
	cl, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	sess, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs()})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()

	pending := make([]*native.Pending, 0, 100)
	for range 100 {
		pending = append(pending, sess.ExecuteAsync(ctx, native.Query("SELECT release_version FROM system.local")))
	}
	ok := 0
	for _, p := range pending {
		<-p.Done()
		if _, err := p.Result(); err == nil {
			ok++
		}
	}
	fmt.Println(ok, "succeeded")
	// Output: 100 succeeded
}

// Server errors are typed and carry the protocol's fields.
func ExampleUnavailableError() {
	var err error = &native.UnavailableError{
		RequestError: native.RequestError{Code: native.CodeUnavailable, Message: "Cannot achieve consistency level QUORUM", Host: "10.0.0.1:9042"},
		Consistency:  native.Quorum, Required: 2, Alive: 1,
	}
	err = fmt.Errorf("saving order: %w", err)

	var ue *native.UnavailableError
	if errors.As(err, &ue) {
		fmt.Println(ue.Required, ue.Alive)
	}
	var re *native.RequestError
	if errors.As(err, &re) {
		fmt.Println(re.Code)
	}
	fmt.Println(err)
	// Output:
	// 2 1
	// unavailable
	// saving order: unavailable: Cannot achieve consistency level QUORUM (host 10.0.0.1:9042) (consistency QUORUM, required 2, alive 1)
}

// nodeDialer is a HostDialer: it opens every connection itself (here over plain TCP with a
// keep-alive period; a proxy or tunnel client goes here) and is told which node it dials.
type nodeDialer struct{ net.Dialer }

func (d *nodeDialer) DialHost(ctx context.Context, host native.Host) (net.Conn, error) {
	if host.DataCenter != "" {
		fmt.Println("dialling a node of", host.DataCenter)
	}
	return d.DialContext(ctx, "tcp", host.Addr)
}

// Opening the session's connections with a custom dialer (Config.Dialer).
func ExampleConfig_dialer() {
	cl, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()

	d := &nodeDialer{net.Dialer{KeepAlive: 30 * time.Second}}
	sess, err := native.Connect(context.Background(), native.Config{Hosts: cl.Addrs(), Dialer: d, ConnsPerHost: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	res, err := sess.Execute(context.Background(), native.Query("SELECT release_version FROM system.local"))
	if err != nil {
		log.Fatal(err)
	}
	v, err := native.ScanOne[string](res)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("release", v)
	// Output:
	// dialling a node of datacenter1
	// release 5.0.0
}

// Waiting for a request started with ExecuteAsync for no longer than a caller's own
// deadline: Wait gives up the wait, not the request, whose outcome a later Wait or Result
// still returns.
func ExamplePending_Wait() {
	cl, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	sess, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs()})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()

	p := sess.ExecuteAsync(ctx, native.Query("SELECT release_version FROM system.local"))
	waitCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	res, err := p.Wait(waitCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		fmt.Println("still running; collect it later with p.Result()")
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Len(), "row")
	// Output: 1 row
}

// Writing and reading a struct: BindStruct takes each bind marker's value from the field of
// its name (or `cql` tag), RowToStruct fills the fields from the columns.
func ExampleBindStruct() {
	cl, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	sess, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs()})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	for _, ddl := range []string{
		"CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE shop.users (id int PRIMARY KEY, name text, email text)",
	} {
		if _, err := sess.Execute(ctx, native.Query(ddl)); err != nil {
			log.Fatal(err)
		}
	}
	type user struct {
		ID    int32 `cql:"id"`
		Name  string
		Email string
	}
	ins, err := sess.Prepare(ctx, "INSERT INTO shop.users (id, name, email) VALUES (?, ?, ?)")
	if err != nil {
		log.Fatal(err)
	}
	st, err := native.BindStruct(ins, user{ID: 1, Name: "Ada", Email: "ada@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := sess.Execute(ctx, st); err != nil {
		log.Fatal(err)
	}
	res, err := sess.Execute(ctx, native.Query("SELECT id, name, email FROM shop.users WHERE id = ?", int32(1)))
	if err != nil {
		log.Fatal(err)
	}
	row, _ := res.First()
	u, err := native.RowToStruct[user](row)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", u)
	// Output: {ID:1 Name:Ada Email:ada@example.com}
}
