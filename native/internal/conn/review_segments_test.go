package conn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// marked reports whether payload is one whole RESULT frame answering the test's SELECT (its
// metadata names the column release_version).
func marked(payload []byte) bool {
	if len(payload) < proto.HeaderSize || payload[0] != 0x85 || proto.Opcode(payload[4]) != proto.OpResult {
		return false
	}
	h, err := proto.ParseHeader(payload, 0)
	return err == nil && proto.HeaderSize+h.Length == len(payload) && bytes.Contains(payload, []byte("release_version"))
}

// TestV5SegmentsCarryWholeFrames has a v5 server send the response to a query in segments
// that break the specification's rule on frames: a self-contained segment holds one or more
// whole frames, and a frame split over segments travels alone in segments that are not
// self-contained. Each breach fails the request at once with an error wrapping
// proto.ErrMalformed and closes the connection: none waits for its timeout (a frame cut
// short in a self-contained segment did, the reader waiting for the rest of it), and none is
// read as if nothing were wrong (a frame in two self-contained segments was). The checksums
// of every segment are right, so only the framing rule can tell.
func TestV5SegmentsCarryWholeFrames(t *testing.T) {
	cases := map[string]func(f []byte) []cqltest.Segment{
		"frame cut short in a self-contained segment": func(f []byte) []cqltest.Segment {
			return []cqltest.Segment{{Payload: f[:len(f)-5], SelfContained: true}}
		},
		"frame over two self-contained segments": func(f []byte) []cqltest.Segment {
			return []cqltest.Segment{{Payload: f[:20], SelfContained: true}, {Payload: f[20:], SelfContained: true}}
		},
		"frame header over two self-contained segments": func(f []byte) []cqltest.Segment {
			return []cqltest.Segment{{Payload: f[:4], SelfContained: true}, {Payload: f[4:], SelfContained: true}}
		},
		"two frames in a segment that is not self-contained": func(f []byte) []cqltest.Segment {
			return []cqltest.Segment{{Payload: append(bytes.Clone(f), f...), SelfContained: false}}
		},
		"self-contained segment inside a split frame": func(f []byte) []cqltest.Segment {
			return []cqltest.Segment{{Payload: f[:30], SelfContained: false}, {Payload: f, SelfContained: true}, {Payload: f[30:], SelfContained: false}}
		},
	}
	for name, split := range cases {
		for _, comp := range []string{"", "lz4"} {
			t.Run(name+"/compression="+comp, func(t *testing.T) {
				host := v5Host(t, cqlsim.Options{})
				rw := &cqltest.FrameRewriter{Compressed: comp != "", RewriteSegment: func(s cqltest.Segment) []cqltest.Segment {
					if s.SelfContained && marked(s.Payload) {
						return split(s.Payload)
					}
					return []cqltest.Segment{s}
				}}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				c, err := Dial(ctx, host, Config{Version: proto.Version5, Compression: comp, Dialer: rw.DialContext, HeartbeatInterval: -1})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if resp, err := c.Do(ctx, query("SELECT cluster_name FROM system.local")); err != nil {
					t.Fatalf("a query the rewriter leaves alone: %v", err)
				} else {
					resp.Release()
				}
				qctx, qcancel := context.WithTimeout(ctx, 5*time.Second)
				defer qcancel()
				resp, err := c.Do(qctx, query("SELECT release_version FROM system.local"))
				if err == nil {
					msg := fmt.Sprintf("%T", resp.Msg)
					resp.Release()
					t.Fatalf("the response in broken segments was read as %s", msg)
				}
				if !errors.Is(err, proto.ErrMalformed) || !errors.Is(err, ErrConnClosed) {
					t.Fatalf("err = %v, want ErrConnClosed caused by proto.ErrMalformed", err)
				}
				waitDone(t, c)
			})
		}
	}
}
