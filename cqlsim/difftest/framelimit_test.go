package difftest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TestOversizedRequest sends a statement whose request frame is over Cassandra's
// native_transport_max_frame_size (16 MiB by default, cqlsim's default MaxFrameLength), then
// another one on the same session: both servers refuse the first with the same INVALID
// "Request is too big: ..." (the length counting the frame's header) and answer the second
// on the same connection. cqlsim used to answer with a PROTOCOL_ERROR and close the
// connection.
func TestOversizedRequest(t *testing.T) {
	const noKeyspace = "no_keyspace_named" // the steps name none
	hosts := referenceHosts(t)
	steps := []Step{
		// gocql prepares a SELECT: the PREPARE is refused, its frame the same on both.
		{Query: "SELECT key FROM system.local WHERE key = '" + strings.Repeat("k", 17<<20) + "'", WantErr: true},
		{Query: "SELECT key FROM system.local"},
	}
	want := Run(session(t, hosts[0]), noKeyspace, steps)
	sim := cqlsim.StartT(t, cqlsim.Options{})
	got := Run(session(t, sim.Addrs()[0]), noKeyspace, steps)
	for i, st := range steps {
		if (want[i].Error != "") != st.WantErr {
			t.Errorf("step %d on Cassandra: code %#x %q", i, want[i].Code, want[i].Error)
		}
		// Leave the statements out of the comparison (and of its report): they are the same.
		want[i].Query, got[i].Query = "", ""
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("step %d: Cassandra (-) vs cqlsim (+):\n%s", i, d)
		}
	}
	if !strings.HasPrefix(want[0].Error, "Request is too big: length ") {
		t.Errorf("Cassandra refused the oversized statement with %q", want[0].Error)
	}
}
