package cqltest

import (
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TestExecWaitsForSchemaAgreement checks that DDL through ExecErr returns only once the node's
// peers report its new schema version: cqlsim's peers catch up when its clock passes the
// change by SchemaPropagationDelay, and the test moves that clock.
func TestExecWaitsForSchemaAgreement(t *testing.T) {
	clock := cqlsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Now: clock.Now, SchemaPropagationDelay: time.Second})
	host := c.Addrs()[0]

	done := make(chan error, 1)
	go func() {
		done <- ExecErr(host, "CREATE KEYSPACE agree WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	}()
	// Once the keyspace exists, ExecErr must still be waiting: the peers disagree until the
	// clock moves. USE is not DDL and returns at once.
	deadline := time.Now().Add(30 * time.Second)
	for ExecErr(host, "USE agree") != nil {
		if time.Now().After(deadline) {
			t.Fatal("the keyspace was never created")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("ExecErr returned (%v) while the peers disagree", err)
	default:
	}
	clock.Advance(time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestFirstColumnRejectsMalformedResults(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":          nil,
		"not rows":       {0, 0, 0, 1},
		"truncated spec": {0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 'k'},
		"huge cell":      {0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 1, 0x7f, 0, 0, 0},
	} {
		if _, err := firstColumn(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
