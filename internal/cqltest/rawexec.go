package cqltest

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// codec encodes and decodes protocol frames with DataStax's protocol library: set-up stays
// independent of the code under test (no cqlbridge package).
var codec = frame.NewCodec()

// rawExec runs one statement over a fresh protocol v4 connection: STARTUP, then QUERY at
// consistency ONE; after DDL it waits for schema agreement (awaitAgreement).
func rawExec(ctx context.Context, host, cql string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	} else {
		_ = c.SetDeadline(time.Now().Add(time.Minute))
	}
	if _, err := roundTrip(c, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}}); err != nil {
		return fmt.Errorf("STARTUP: %w", err)
	}
	resp, err := roundTrip(c, query(cql))
	if err != nil {
		return err
	}
	if _, ok := resp.(*message.SchemaChangeResult); ok {
		return awaitAgreement(ctx, c)
	}
	return nil
}

// query is a QUERY of cql at consistency ONE, without values.
func query(cql string) *message.Query {
	return &message.Query{Query: cql, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}}
}

// awaitAgreement polls, on c, the schema version of the node and those it lists for its
// peers until they are all the same, as drivers do after DDL: on a multi-node cluster the
// next statement may go to another coordinator, which must know the change. It gives up when
// ctx ends.
func awaitAgreement(ctx context.Context, c io.ReadWriter) error {
	for {
		versions := map[string]bool{}
		for _, q := range []string{"SELECT schema_version FROM system.local", "SELECT schema_version FROM system.peers"} {
			resp, err := roundTrip(c, query(q))
			if err != nil {
				return fmt.Errorf("awaiting schema agreement: %s: %w", q, err)
			}
			rows, ok := resp.(*message.RowsResult)
			if !ok {
				return fmt.Errorf("awaiting schema agreement: %s: got %v, want rows", q, resp)
			}
			for _, row := range rows.Data {
				if len(row) > 0 && len(row[0]) > 0 {
					versions[string(row[0])] = true
				}
			}
		}
		if len(versions) <= 1 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("awaiting schema agreement: %w (%d versions)", ctx.Err(), len(versions))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// roundTrip sends m on stream 1 and returns the answer; an ERROR answer becomes an error.
func roundTrip(rw io.ReadWriter, m message.Message) (message.Message, error) {
	if err := codec.EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, 1, m), rw); err != nil {
		return nil, err
	}
	for {
		f, err := codec.DecodeFrame(rw)
		if err != nil {
			return nil, err
		}
		if f.Header.StreamId != 1 {
			continue // an event or a stray frame: not our answer
		}
		if e, ok := f.Body.Message.(message.Error); ok {
			return nil, fmt.Errorf("server error 0x%04x: %s", uint32(e.GetErrorCode()), e.GetErrorMessage())
		}
		return f.Body.Message, nil
	}
}
