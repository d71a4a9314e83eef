package native_test

import (
	"testing"

	"github.com/cqlbridge/cqlbridge/native"
)

// The accessors of a nil or zero *Prepared (a Prepare whose error was not checked, or a
// Prepared{} literal) report an empty statement, as Bind accepts one, instead of panicking
// on its missing metadata.
func TestReviewAPI2ZeroPreparedAccessors(t *testing.T) {
	var nilPrepared *native.Prepared
	for name, p := range map[string]*native.Prepared{"nil": nilPrepared, "zero": {}} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s *Prepared: accessor panicked: %v", name, r)
				}
			}()
			if p.ID() != nil || p.Params() != nil || p.Columns() != nil || p.PartitionKeyIndexes() != nil {
				t.Errorf("%s *Prepared: metadata %x %v %v %v, want none", name, p.ID(), p.Params(), p.Columns(), p.PartitionKeyIndexes())
			}
			if p.CQL() != "" || p.Keyspace() != "" || p.Evicted() {
				t.Errorf("%s *Prepared: CQL %q, keyspace %q, evicted %v, want empty", name, p.CQL(), p.Keyspace(), p.Evicted())
			}
		}()
	}
}
