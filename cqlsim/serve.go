package cqlsim

import (
	"bytes"
	"crypto/md5"
	"errors"
	"fmt"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/engine"
	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

// serve runs one statement request (QUERY, PREPARE, EXECUTE, BATCH) on a worker goroutine and
// queues the response. A panic in the engine becomes a SERVER_ERROR for this request only.
func (c *conn) serve(h wire.Header, req *wire.Request) {
	defer c.inFlight.Add(-1)
	defer func() {
		if p := recover(); p != nil {
			c.log.Warn("cqlsim: engine panic", "opcode", wire.OpcodeName(h.Opcode), "panic", p)
			c.reply(h, &message.ServerError{ErrorMessage: fmt.Sprintf("internal error in cqlsim: %v", p)}, nil)
		}
	}()
	var payload []byte // the tablets-routing-v1 custom payload the result owes the client
	if c.node.shards != nil {
		payload = c.countShard(h, req)
	}
	if !c.waitDelay(h.Opcode) {
		return // the connection closed during the delay
	}
	f, unknown := c.fault(req)
	if hook := c.node.cluster.afterFaultCheck.Load(); hook != nil {
		(*hook)()
	}
	if unknown == nil && f != nil {
		if !c.sleep(f.Delay) {
			return
		}
		if f.Error != nil {
			if f.Unsolicited {
				h.Stream = -1 // see Fault.Unsolicited: the statement gets no answer
			}
			c.reply(h, c.rateLimitFor(f.Error), f.Warnings)
			return
		}
	}
	var started time.Time
	traced := h.Flags&wire.FlagTracing != 0
	if traced {
		started = time.Now()
	}
	var msg message.Message
	var rows rowsReply
	var warnings []string
	if unknown != nil {
		msg = unknown // as the engine answers it (traced when asked), see conn.fault
	} else {
		msg, rows, warnings = c.execute(h, req)
	}
	if payload != nil {
		if _, failed := msg.(message.Error); failed {
			payload = nil // errors carry no routing information
		}
	}
	if traced {
		c.replyTraced(h, msg, rows, warnings, payload, c.recordTrace(req, started))
		return
	}
	if payload != nil {
		if b := c.encodeResult(h, msg, rows, warnings, payload); b != nil {
			c.send(outFrame{b: b})
		}
		return
	}
	if msg == nil && rows.res != nil {
		c.replyRows(h, rows.res, rows.noMetadata, rows.newMetadataID)
		return
	}
	c.reply(h, msg, warnings)
}

// waitDelay waits out the node's delay (Cluster.SetNodeDelay) before a statement runs. It
// returns false when the connection shut down meanwhile.
func (c *conn) waitDelay(op byte) bool {
	switch op {
	case wire.OpQuery, wire.OpPrepare, wire.OpExecute, wire.OpBatch:
	default:
		return true
	}
	return c.sleep(time.Duration(c.node.delay.Load()))
}

// sleep waits d; it returns false when the connection shut down meanwhile.
func (c *conn) sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.done:
		return false
	}
}

// keyspaceFor returns the keyspace a request runs in: its own (protocol v5) or the connection's.
func (c *conn) keyspaceFor(requested string) string {
	if requested != "" {
		return requested
	}
	return c.currentKeyspace()
}

func (c *conn) currentKeyspace() string {
	if ks := c.keyspace.Load(); ks != nil {
		return *ks
	}
	return ""
}

// rowsReply is the engine's rows result behind a response; without a response message it is
// encoded by the fast encoder (appendRowsFrame).
type rowsReply struct {
	res        *engine.Result
	noMetadata bool // the EXECUTE asked to skip the result metadata and may (see skipMetadata)
	// newMetadataID, when set, is the current result metadata id of an EXECUTE that sent an
	// outdated one (v5, or ScyllaDB's useMetadataIDOption): the rows carry it with the
	// METADATA_CHANGED flag (see metadataChanged).
	newMetadataID []byte
}

// execute runs a decoded statement request on the engine and returns the response message, or,
// for a rows result without warnings, the result itself.
func (c *conn) execute(h wire.Header, req *wire.Request) (message.Message, rowsReply, []string) {
	eng := c.node.cluster.engine
	node := c.node.index
	switch {
	case req.Prepare != nil:
		p, err := eng.Prepare(c.keyspaceFor(req.Prepare.Keyspace), req.Prepare.Query)
		if err != nil {
			return errorMessage(err), rowsReply{}, nil
		}
		c.node.learn(p.ID)
		return c.prepared(preparedMessage(p, h.Version), p.Conditional, h.Version), rowsReply{}, nil
	case req.Query != nil:
		q := req.Query
		return c.result(eng.Execute(&engine.Request{
			Node:        node,
			Keyspace:    c.keyspaceFor(q.Params.Keyspace),
			Query:       q.Query,
			Values:      q.Params.Values,
			PageSize:    q.Params.PageSize,
			PagingState: q.Params.PagingState,
			Timestamp:   q.Params.Timestamp,
			Consistency: q.Params.Consistency,
			Serial:      q.Params.Serial,
		}))
	case req.Execute != nil:
		e := req.Execute
		p, ok := c.node.lookup(e.ID)
		if !ok {
			return unprepared(e.ID), rowsReply{}, nil
		}
		msg, rows, warnings := c.result(eng.Execute(&engine.Request{
			Node:        node,
			Keyspace:    c.keyspaceFor(e.Params.Keyspace),
			Prepared:    p,
			Values:      e.Params.Values,
			PageSize:    e.Params.PageSize,
			PagingState: e.Params.PagingState,
			Timestamp:   e.Params.Timestamp,
			Consistency: e.Params.Consistency,
			Serial:      e.Params.Serial,
		}))
		if rows.res == nil {
			return msg, rows, warnings
		}
		ids := h.Version >= 5 || c.metadataID.Load()
		if id := metadataChanged(ids, e, p, rows.res.Columns); id != nil {
			rows.newMetadataID = id
			if rm, ok := msg.(*message.RowsResult); ok {
				rm.Metadata.NewResultMetadataId = id
			}
			return msg, rows, warnings
		}
		if !skipMetadata(ids, e, p, rows.res.Columns) {
			return msg, rows, warnings
		}
		rows.noMetadata = true
		if rm, ok := msg.(*message.RowsResult); ok {
			rm.Metadata.Columns = nil // the library encodes it with NO_METADATA and the column count only
		}
		return msg, rows, warnings
	case req.Batch != nil:
		b := req.Batch
		br := &engine.BatchRequest{
			Node:        node,
			Keyspace:    c.keyspaceFor(b.Keyspace),
			Type:        b.Type,
			Statements:  make([]engine.Request, len(b.Statements)),
			Timestamp:   b.Timestamp,
			Consistency: b.Consistency,
			Serial:      b.Serial,
		}
		for i, s := range b.Statements {
			r := engine.Request{Node: node, Keyspace: br.Keyspace, Query: s.Query, Values: s.Values,
				Timestamp: b.Timestamp, Consistency: b.Consistency, Serial: b.Serial}
			if s.ID != nil {
				p, ok := c.node.lookup(s.ID)
				if !ok {
					return unprepared(s.ID), rowsReply{}, nil
				}
				r.Prepared = p
			}
			br.Statements[i] = r
		}
		return c.result(eng.Batch(br))
	}
	return &message.ProtocolError{ErrorMessage: "request has no statement"}, rowsReply{}, nil
}

// result maps an engine outcome to a RESULT or ERROR message, applying its side effects: USE sets
// the connection's keyspace, DDL pushes a SCHEMA_CHANGE event. A rows result without warnings is
// returned as is instead, for the fast encoder (appendRowsFrame).
func (c *conn) result(res *engine.Result, err error) (message.Message, rowsReply, []string) {
	if err != nil {
		return errorMessage(err), rowsReply{}, nil
	}
	if res == nil {
		return &message.ServerError{ErrorMessage: "internal error in cqlsim: the engine returned no result"}, rowsReply{}, nil
	}
	switch res.Kind {
	case engine.ResultVoid:
		return &message.VoidResult{}, rowsReply{}, res.Warnings
	case engine.ResultRows:
		if len(res.Columns) == 0 {
			return &message.ServerError{ErrorMessage: "internal error in cqlsim: rows result without columns"}, rowsReply{}, nil
		}
		if len(res.Warnings) == 0 {
			return nil, rowsReply{res: res}, nil
		}
		return rowsMessage(res, uint8(c.version.Load())), rowsReply{res: res}, res.Warnings
	case engine.ResultSetKeyspace:
		ks := res.Keyspace
		c.keyspace.Store(&ks)
		return &message.SetKeyspaceResult{Keyspace: ks}, rowsReply{}, res.Warnings
	case engine.ResultSchemaChange:
		sc := res.SchemaChange
		if sc == nil {
			return &message.ServerError{ErrorMessage: "internal error in cqlsim: schema change result without details"}, rowsReply{}, nil
		}
		c.node.cluster.publishSchemaChange(sc)
		return &message.SchemaChangeResult{
			ChangeType: primitive.SchemaChangeType(sc.Change),
			Target:     primitive.SchemaChangeTarget(sc.Target),
			Keyspace:   sc.Keyspace,
			Object:     sc.Name,
		}, rowsReply{}, res.Warnings
	}
	return &message.ServerError{ErrorMessage: fmt.Sprintf("internal error in cqlsim: unknown result kind %d", res.Kind)}, rowsReply{}, nil
}

// rowsMessage builds the RESULT Rows message for res (the general path, used with warnings) for
// a client speaking protocol version.
func rowsMessage(res *engine.Result, version uint8) *message.RowsResult {
	rows := make(message.RowSet, len(res.Rows))
	copy(rows, res.Rows)
	return &message.RowsResult{
		Metadata: &message.RowsMetadata{
			ColumnCount: int32(len(res.Columns)),
			PagingState: res.PagingState,
			Columns:     columnMetadata(res.Columns, version),
		},
		Data: rows,
	}
}

// columnMetadata describes cols to a client speaking protocol version (see typeFor).
func columnMetadata(cols []engine.Column, version uint8) []*message.ColumnMetadata {
	out := make([]*message.ColumnMetadata, len(cols))
	for i, col := range cols {
		out[i] = &message.ColumnMetadata{Keyspace: col.Keyspace, Table: col.Table, Name: col.Name, Index: int32(i), Type: typeFor(col.Type, version)}
	}
	return out
}

// preparedMessage is the RESULT Prepared message of p for a client speaking protocol version.
func preparedMessage(p *engine.Prepared, version uint8) *message.PreparedResult {
	vars := &message.VariablesMetadata{Columns: columnMetadata(p.Vars, version), PkIndices: p.PKIndexes}
	if vars.PkIndices == nil {
		vars.PkIndices = []uint16{}
	}
	result := &message.RowsMetadata{ColumnCount: int32(len(p.Result))}
	if len(p.Result) > 0 {
		result.Columns = columnMetadata(p.Result, version)
	}
	return &message.PreparedResult{PreparedQueryId: p.ID, ResultMetadataId: resultMetadataID(p.Result), VariablesMetadata: vars, ResultMetadata: result}
}

// resultMetadataID is the result metadata id (protocol v5, or ScyllaDB's useMetadataIDOption)
// of the result columns cols: derived from them, so it changes exactly when they do.
func resultMetadataID(cols []engine.Column) []byte {
	h := md5.New()
	for _, col := range cols {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", col.Keyspace, col.Table, col.Name, col.Type)
	}
	return h.Sum(nil)
}

// skipMetadata reports whether the rows answering EXECUTE e of p, with columns cols, may leave
// out the metadata, as Cassandra decides: the client asked to skip it, the columns are those p
// was prepared with (an LWT's [applied] columns are not) and, with result metadata ids (ids:
// protocol v5, or ScyllaDB's useMetadataIDOption), the client's result metadata id is the
// current one. A result without columns always carries its metadata.
func skipMetadata(ids bool, e *wire.Execute, p *engine.Prepared, cols []engine.Column) bool {
	if !e.Params.SkipMetadata || len(cols) == 0 || len(cols) != len(p.Result) {
		return false
	}
	for i, c := range cols {
		r := p.Result[i]
		if c.Keyspace != r.Keyspace || c.Table != r.Table || c.Name != r.Name {
			return false
		}
		if c.Type != r.Type && (c.Type == nil || r.Type == nil || c.Type.AsCql() != r.Type.AsCql()) {
			return false
		}
	}
	return !ids || bytes.Equal(e.ResultMetadataID, resultMetadataID(p.Result))
}

// metadataChanged returns the result metadata id of cols when the EXECUTE e of p, on a
// connection with result metadata ids (ids: protocol v5, or ScyllaDB's useMetadataIDOption),
// named another one, else nil. As in Cassandra (ExecuteMessage), the rows then carry the full
// metadata with the METADATA_CHANGED flag and the new id, whether or not the client asked to
// skip the metadata; conditional updates (whose [applied] columns vary; p has no result
// columns) never set the flag (CASSANDRA-13992).
func metadataChanged(ids bool, e *wire.Execute, p *engine.Prepared, cols []engine.Column) []byte {
	if !ids || len(p.Result) == 0 || len(cols) == 0 {
		return nil
	}
	id := resultMetadataID(cols)
	if bytes.Equal(e.ResultMetadataID, id) {
		return nil
	}
	return id
}

func unprepared(id []byte) *message.Unprepared {
	return &message.Unprepared{
		ErrorMessage: fmt.Sprintf("Prepared query with ID %x not found (either the query was not prepared on this host (maybe the host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)", id),
		Id:           id,
	}
}

// errorMessage maps an engine error to the ERROR message of its code. Errors that are not
// *engine.Error are server errors.
func errorMessage(err error) message.Message {
	var e *engine.Error
	if !errors.As(err, &e) {
		return &message.ServerError{ErrorMessage: err.Error()}
	}
	msg := e.Message
	switch primitive.ErrorCode(e.Code) {
	case primitive.ErrorCodeServerError:
		return &message.ServerError{ErrorMessage: msg}
	case primitive.ErrorCodeProtocolError:
		return &message.ProtocolError{ErrorMessage: msg}
	case primitive.ErrorCodeAuthenticationError:
		return &message.AuthenticationError{ErrorMessage: msg}
	case primitive.ErrorCodeUnavailable:
		if e.Required > 0 { // filled by the engine's consistency check
			return &message.Unavailable{ErrorMessage: msg, Consistency: primitive.ConsistencyLevel(e.Consistency), Required: e.Required, Alive: e.Alive}
		}
		return &message.Unavailable{ErrorMessage: msg, Consistency: primitive.ConsistencyLevelOne, Required: 1}
	case primitive.ErrorCodeOverloaded:
		return &message.Overloaded{ErrorMessage: msg}
	case primitive.ErrorCodeIsBootstrapping:
		return &message.IsBootstrapping{ErrorMessage: msg}
	case primitive.ErrorCodeTruncateError:
		return &message.TruncateError{ErrorMessage: msg}
	case primitive.ErrorCodeWriteTimeout:
		return &message.WriteTimeout{ErrorMessage: msg, Consistency: primitive.ConsistencyLevelOne, BlockFor: 1, WriteType: primitive.WriteTypeSimple}
	case primitive.ErrorCodeReadTimeout:
		return &message.ReadTimeout{ErrorMessage: msg, Consistency: primitive.ConsistencyLevelOne, BlockFor: 1}
	case primitive.ErrorCodeReadFailure:
		return &message.ReadFailure{ErrorMessage: msg, Consistency: primitive.ConsistencyLevelOne, BlockFor: 1, NumFailures: 1}
	case primitive.ErrorCodeWriteFailure:
		return &message.WriteFailure{ErrorMessage: msg, Consistency: primitive.ConsistencyLevelOne, BlockFor: 1, NumFailures: 1, WriteType: primitive.WriteTypeSimple}
	case primitive.ErrorCodeFunctionFailure:
		args := e.ArgTypes
		if args == nil {
			args = []string{}
		}
		return &message.FunctionFailure{ErrorMessage: msg, Keyspace: e.Keyspace, Function: e.Function, Arguments: args}
	case primitive.ErrorCodeSyntaxError:
		return &message.SyntaxError{ErrorMessage: msg}
	case primitive.ErrorCodeUnauthorized:
		return &message.Unauthorized{ErrorMessage: msg}
	case primitive.ErrorCodeInvalid:
		return &message.Invalid{ErrorMessage: msg}
	case primitive.ErrorCodeConfigError:
		return &message.ConfigError{ErrorMessage: msg}
	case primitive.ErrorCodeAlreadyExists:
		return &message.AlreadyExists{ErrorMessage: msg, Keyspace: e.Keyspace, Table: e.Table}
	case primitive.ErrorCodeUnprepared:
		return &message.Unprepared{ErrorMessage: msg, Id: e.ID}
	}
	return &message.ServerError{ErrorMessage: fmt.Sprintf("%s (engine error code 0x%04X)", msg, int32(e.Code))}
}
