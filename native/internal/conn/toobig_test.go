package conn

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// oversizedQuery returns a QUERY of more than 17 MiB, over Cassandra's default
// native_transport_max_frame_size (16 MiB), made of random letters so that no compressor
// brings it under.
func oversizedQuery() *proto.Query {
	b := make([]byte, 17<<20)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = 'a' + b[i]%26
	}
	return &proto.Query{Query: "SELECT '" + string(b) + "' FROM system.local", Params: proto.QueryParams{Consistency: proto.One}}
}

// TestRequestsAfterOversizedRequestAnswered: Cassandra 5.0.9 answers a v3/v4 request over its
// frame limit with INVALID "Request is too big: ...", but leaves unread the requests that
// arrived in the same read as the end of that frame until more bytes come (its decoder
// throws the error and returns; checked with a raw socket). The connection now sends an
// OPTIONS of its own when it sees that answer, so the server reads again and the requests
// behind the oversized one are answered; they waited for their timeout (or the next
// heartbeat) before. Needs a Cassandra node (CQL_HOSTS): cqlsim has no such bug.
func TestRequestsAfterOversizedRequestAnswered(t *testing.T) {
	hosts := cqltest.HostsFromEnv()
	if len(hosts) == 0 {
		t.Skipf("%s is unset: the test needs a Cassandra node, whose bug it works around", cqltest.EnvHosts)
	}
	big := oversizedQuery()
	for _, tc := range []struct {
		version     proto.Version
		compression string
	}{{proto.Version4, ""}, {proto.Version3, ""}, {proto.Version4, "lz4"}} {
		t.Run(fmt.Sprintf("v%d %s", tc.version, tc.compression), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// The node must read the small requests with the end of the oversized frame:
			// the dialer sends them in one write.
			d := &cqltest.TailJoiner{MinLen: 1 << 20}
			c, err := Dial(ctx, hosts[0], Config{Version: tc.version, Compression: tc.compression, HeartbeatInterval: -1, Dialer: d.DialContext})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			call, err := c.Start(ctx, big)
			if err != nil {
				t.Fatal(err)
			}
			// Queued while the oversized frame is being written, or after: the writer sends
			// them behind it, and the node reads them with its end.
			const small = 8
			var wg sync.WaitGroup
			errs := make([]error, small)
			for i := range small {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// A few seconds: the test fails, instead of hanging, when they are not
					// answered (they would be at the next heartbeat, disabled here).
					sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
					defer cancel()
					resp, err := c.Do(sctx, &proto.Query{Query: "SELECT release_version FROM system.local", Params: proto.QueryParams{Consistency: proto.One}})
					if err == nil {
						resp.Release()
					}
					errs[i] = err
				}()
			}
			_, err = call.Response()
			var er *proto.ErrorResponse
			if !errors.As(err, &er) || er.Code != proto.ErrCodeInvalid || !strings.HasPrefix(er.Message, "Request is too big: length ") {
				t.Fatalf("the oversized request got %v, want INVALID Request is too big", err)
			}
			call.Release()
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("request %d after the oversized one: %v", i, err)
				}
			}
			if c.Err() != nil {
				t.Errorf("the connection closed: %v", c.Err())
			}
		})
	}
}
