package native_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/cqlbridge/cqlbridge/native"
)

// Connecting, preparing a statement and reading rows across pages. This example needs a
// server, so it is compiled but not run.
func Example() {
	ctx := context.Background()
	sess, err := native.Connect(ctx, native.Config{Hosts: []string{"127.0.0.1"}, Keyspace: "shop"})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()

	ins, err := sess.Prepare(ctx, "INSERT INTO items (id, name) VALUES (?, ?)")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := sess.Execute(ctx, ins.Bind(1, "apple").WithIdempotent(true)); err != nil {
		log.Fatal(err)
	}

	for row, err := range sess.Iter(ctx, native.Query("SELECT id, name FROM items").WithPageSize(100)) {
		if err != nil {
			log.Fatal(err)
		}
		var id int
		var name string
		if err := row.Scan(&id, &name); err != nil {
			log.Fatal(err)
		}
		fmt.Println(id, name)
	}
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

// Many requests in flight from one goroutine.
func ExampleSession_ExecuteAsync() {
	ctx := context.Background()
	sess, err := native.Connect(ctx, native.Config{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()

	pending := make([]*native.Pending, 0, 1000)
	for i := range 1000 {
		pending = append(pending, sess.ExecuteAsync(ctx, native.Query("SELECT release_version FROM system.local WHERE key = 'local'").WithIdempotent(i%2 == 0)))
	}
	for _, p := range pending {
		<-p.Done()
		if _, err := p.Result(); err != nil {
			log.Fatal(err)
		}
	}
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
