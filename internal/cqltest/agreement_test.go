package cqltest

import (
	"bytes"
	"context"
	"encoding/binary"
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

// answers is an io.ReadWriter whose reads return the given RESULT bodies as response frames
// on stream 1 and whose writes are discarded.
type answers struct{ r *bytes.Reader }

func newAnswers(bodies ...[]byte) answers {
	var b []byte
	for _, body := range bodies {
		b = append(b, 0x84, 0, 0, 1, 0x08)
		b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
		b = append(b, body...)
	}
	return answers{bytes.NewReader(b)}
}

func (a answers) Read(p []byte) (int, error)  { return a.r.Read(p) }
func (a answers) Write(p []byte) (int, error) { return len(p), nil }

func TestMalformedResultsAreErrors(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":          nil,
		"truncated spec": {0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 'k'},
		// 1 MiB claimed, 0 bytes there. (The protocol library allocates a cell's claimed
		// length before reading it: a length near 2 GiB exhausted a 32-bit test process.)
		"cell longer than the frame": {0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0x10, 0, 0},
	} {
		if _, err := roundTrip(newAnswers(b), query("SELECT schema_version FROM system.local")); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A well-formed answer that is not rows (VOID) ends the agreement wait with an error.
	if err := awaitAgreement(context.Background(), newAnswers([]byte{0, 0, 0, 1})); err == nil {
		t.Error("not rows: no error")
	}
}
