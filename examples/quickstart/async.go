package main

import (
	"fmt"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/future"
)

// asyncPart runs a query asynchronously (a cqlbridge extension to the gocql API) and reads it
// page by page from callbacks on the future, in the style of the legacy Python driver.
func asyncPart(session *gocql.Session, ks string) error {
	f := session.Query("SELECT id, text FROM "+ks+".tweets WHERE timeline = ?", "me").PageSize(2).IterAsync()
	done := make(chan error, 1)
	f.AddCallbacks(func(p future.Page) {
		rows, err := p.Rows()
		if err != nil {
			done <- err
			return
		}
		fmt.Printf("  callback: page %d with %d rows\n", p.Number(), len(rows))
		if f.HasMorePages() {
			if err := f.StartFetchingNextPage(); err != nil {
				done <- err
			}
			return
		}
		done <- nil
	}, func(err error) {
		done <- err
	})
	if err := <-done; err != nil {
		return fmt.Errorf("async pages: %w", err)
	}
	return nil
}
