package cqlsim

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

// Fault makes a node answer some statements with a server error instead of running them, as a
// node does when replicas time out, when it is overloaded or bootstrapping, or answer them late
// (see Cluster.InjectFault). Errors that a single node cannot produce on its own (a read or write
// timeout, a read or write failure, an overloaded coordinator, a write refused by change data
// capture, a lightweight transaction of unknown outcome) can be served this way, to test how a
// driver decodes them and what its retry policies decide.
type Fault struct {
	// Match selects the statements that fail: a QUERY whose CQL text contains Match, an
	// EXECUTE of a statement prepared from such a text, a BATCH with such a statement among
	// its own. Empty matches every statement, the queries that drivers make of the system
	// tables included. PREPARE is never failed: the statement can be prepared, and its
	// executions fail (a fault with Prepare set delays the PREPARE instead). An EXECUTE (or
	// a BATCH) of a statement the node does not know is answered UNPREPARED, as always, and
	// no fault counts it: the driver's next EXECUTE, once it has prepared the statement
	// there, meets the fault.
	Match string
	// Error, when set, is the ERROR message sent in place of the result: any of the error
	// messages of github.com/datastax/go-cassandra-native-protocol/message
	// (*message.ReadTimeout, *message.WriteTimeout, *message.Unavailable,
	// *message.Overloaded, *message.ReadFailure and so on), or this package's *CDCWriteFailure
	// (CDC_WRITE_FAILURE), *CASWriteUnknown (CAS_WRITE_UNKNOWN) and *RateLimitReached
	// (ScyllaDB's rate limit error). It is encoded in each
	// connection's protocol version: a read or write failure carries its NumFailures up to v4
	// and its Reasons from v5 on. CDC_WRITE_FAILURE and CAS_WRITE_UNKNOWN, defined by the v5
	// spec, are sent the same in every version, for drivers that decode them whatever the
	// version (as gocql v1.7.0 does at v4).
	Error message.Error
	// Warnings, when set, travel with Error, as the warnings Cassandra attaches to some
	// failed requests (protocol v4 and later).
	Warnings []string
	// Delay, when positive, holds the answer back this long: the error's when Error is set,
	// else the statement's result (the statement then runs after the delay), as a node slow
	// on some statements only does. A fault needs an Error, a Delay or both.
	Delay time.Duration
	// Skip is how many matching statements the fault lets pass before it applies, say to
	// serve the first page of a query and not the next ones: it counts every statement the
	// fault matches, whether another fault applies to it or not. They do not count towards
	// Times.
	Skip int
	// Times is how many matching statements fail (or are delayed) before the fault is spent.
	// Zero affects every matching statement until Cluster.ClearFaults.
	Times int
	// Prepare makes the fault delay the PREPARE of the statements Match selects (by their
	// text), and nothing else: a node slow to prepare, as when a driver prepares a statement
	// again after an UNPREPARED answer. It needs a Delay and no Error.
	Prepare bool
	// Unsolicited sends Error on stream -1, outside any request, instead of as the statement's
	// answer, and leaves the statement unanswered: a node reporting a failure of the
	// connection rather than of a request. Negative stream ids carry the server's own messages
	// (EVENT), and drivers differ in what they make of an ERROR there. It needs an Error.
	Unsolicited bool
}

// CDCWriteFailure is the CDC_WRITE_FAILURE error (code 0x1600, native protocol v5 spec
// section 8), which go-cassandra-native-protocol has no message for: a write to a table with
// change data capture enabled was refused, as when the space for the CDC log is exhausted.
// Its body is the message alone. Give a *CDCWriteFailure as Fault.Error.
type CDCWriteFailure struct {
	// ErrorMessage is the server's message.
	ErrorMessage string
}

// CASWriteUnknown is the CAS_WRITE_UNKNOWN error (code 0x1700, native protocol v5 spec
// section 8), which go-cassandra-native-protocol has no message for: a contended lightweight
// transaction was only partly completed, and may or may not be completed by a contending one
// or by a SERIAL read. Its body is <cl><received><blockfor>. Give a *CASWriteUnknown as
// Fault.Error.
type CASWriteUnknown struct {
	// ErrorMessage is the server's message.
	ErrorMessage string
	// Consistency is the consistency level of the statement that failed.
	Consistency primitive.ConsistencyLevel
	// Received is how many replicas acknowledged the request, BlockFor how many had to for
	// Consistency.
	Received, BlockFor int32
}

// RateLimitReached is ScyllaDB's per-partition rate limit error: the statement's partition
// is read or written more often than its table's per-partition rate limit allows. Sharded
// nodes (Options.Shards) offer it in SUPPORTED as SCYLLA_RATE_LIMIT_ERROR=ERROR_CODE=61440
// (0xF000); to a client that echoes the option in STARTUP it is sent with that code and the
// body <op_type><rejected_by_coordinator>, to any other client as a CONFIG_ERROR with the
// same message, as ScyllaDB does. Give a *RateLimitReached as Fault.Error.
type RateLimitReached struct {
	// ErrorMessage is the server's message.
	ErrorMessage string
	// OpType is the operation that went over the limit: 0 a read, 1 a write.
	OpType byte
	// RejectedByCoordinator is true when the coordinator refused the operation, false when
	// a replica did.
	RejectedByCoordinator bool
}

// Error codes that go-cassandra-native-protocol does not define.
const (
	errorCodeCDCWriteFailure primitive.ErrorCode = 0x1600
	errorCodeCASWriteUnknown primitive.ErrorCode = 0x1700
	errorCodeRateLimit       primitive.ErrorCode = 0xF000 // ScyllaDB's default
)

// rateLimitOption is ScyllaDB's rate limit error extension (see RateLimitReached).
const rateLimitOption = "SCYLLA_RATE_LIMIT_ERROR"

// rateLimitFor returns the error to send for e on c: a *RateLimitReached becomes a
// CONFIG_ERROR for a client that did not opt in to the rate limit error.
func (c *conn) rateLimitFor(e message.Error) message.Error {
	if r, ok := e.(*RateLimitReached); ok && !c.rateLimit.Load() {
		return &message.ConfigError{ErrorMessage: r.ErrorMessage}
	}
	return e
}

// IsResponse returns true: the message is a server's.
func (*RateLimitReached) IsResponse() bool { return true }

// GetOpCode returns OpCodeError.
func (*RateLimitReached) GetOpCode() primitive.OpCode { return primitive.OpCodeError }

// GetErrorCode returns 0xF000.
func (*RateLimitReached) GetErrorCode() primitive.ErrorCode { return errorCodeRateLimit }

// GetErrorMessage returns ErrorMessage.
func (m *RateLimitReached) GetErrorMessage() string { return m.ErrorMessage }

// DeepCopyMessage returns a copy of m.
func (m *RateLimitReached) DeepCopyMessage() message.Message { c := *m; return &c }

// String describes the error and its fields, as go-cassandra-native-protocol's messages do.
func (m *RateLimitReached) String() string {
	return fmt.Sprintf("ERROR RATE LIMIT REACHED (code=%#x, msg=%v, op_type=%v, rejected_by_coordinator=%v)",
		uint32(errorCodeRateLimit), m.ErrorMessage, m.OpType, m.RejectedByCoordinator)
}

// appendFields appends the body after the code and message: <op_type><rejected_by_coordinator>.
func (m *RateLimitReached) appendFields(dst []byte) []byte {
	rejected := byte(0)
	if m.RejectedByCoordinator {
		rejected = 1
	}
	return append(dst, m.OpType, rejected)
}

// IsResponse returns true: the message is a server's.
func (*CDCWriteFailure) IsResponse() bool { return true }

// GetOpCode returns OpCodeError.
func (*CDCWriteFailure) GetOpCode() primitive.OpCode { return primitive.OpCodeError }

// GetErrorCode returns 0x1600.
func (*CDCWriteFailure) GetErrorCode() primitive.ErrorCode { return errorCodeCDCWriteFailure }

// GetErrorMessage returns ErrorMessage.
func (m *CDCWriteFailure) GetErrorMessage() string { return m.ErrorMessage }

// DeepCopyMessage returns a copy of m.
func (m *CDCWriteFailure) DeepCopyMessage() message.Message { c := *m; return &c }

// String describes the error, as go-cassandra-native-protocol's messages do.
func (m *CDCWriteFailure) String() string {
	return fmt.Sprintf("ERROR CDC WRITE FAILURE (code=%#x, msg=%v)", uint32(errorCodeCDCWriteFailure), m.ErrorMessage)
}

// appendFields appends the body after the code and message: nothing.
func (*CDCWriteFailure) appendFields(dst []byte) []byte { return dst }

// IsResponse returns true: the message is a server's.
func (*CASWriteUnknown) IsResponse() bool { return true }

// GetOpCode returns OpCodeError.
func (*CASWriteUnknown) GetOpCode() primitive.OpCode { return primitive.OpCodeError }

// GetErrorCode returns 0x1700.
func (*CASWriteUnknown) GetErrorCode() primitive.ErrorCode { return errorCodeCASWriteUnknown }

// GetErrorMessage returns ErrorMessage.
func (m *CASWriteUnknown) GetErrorMessage() string { return m.ErrorMessage }

// DeepCopyMessage returns a copy of m.
func (m *CASWriteUnknown) DeepCopyMessage() message.Message { c := *m; return &c }

// String describes the error and its fields, as go-cassandra-native-protocol's messages do.
func (m *CASWriteUnknown) String() string {
	return fmt.Sprintf("ERROR CAS WRITE UNKNOWN (code=%#x, msg=%v, cl=%v, received=%v, blockfor=%v)",
		uint32(errorCodeCASWriteUnknown), m.ErrorMessage, m.Consistency, m.Received, m.BlockFor)
}

// appendFields appends the body after the code and message: <cl><received><blockfor>.
func (m *CASWriteUnknown) appendFields(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(m.Consistency))
	dst = binary.BigEndian.AppendUint32(dst, uint32(m.Received))
	return binary.BigEndian.AppendUint32(dst, uint32(m.BlockFor))
}

// faultList holds a node's injected faults, in injection order.
type faultList struct {
	on     atomic.Bool // any fault installed: the fast path of serve skips the lock when not
	mu     sync.Mutex
	faults []*faultState
}

type faultState struct {
	f    Fault
	skip int // matching statements still to let through
	left int // statements still to fail, when f.Times > 0
}

// InjectFault makes node i (0-based, in Addrs order) answer the statements f matches with
// f.Error (after f.Delay), or run them f.Delay late (or, with f.Prepare, prepare them f.Delay
// late), from the next statement on, until f.Times of them have been affected or ClearFaults
// is called. When several faults match a statement,
// the first injected that is not skipping statements applies. A failed statement is not run:
// a failed write writes nothing. Faults survive StopNode and StartNode.
func (c *Cluster) InjectFault(i int, f Fault) error {
	if i < 0 || i >= len(c.nodes) {
		return fmt.Errorf("cqlsim: InjectFault(%d): the cluster has nodes 0 to %d", i, len(c.nodes)-1)
	}
	if f.Error == nil && f.Delay <= 0 {
		return fmt.Errorf("cqlsim: InjectFault(%d, match %q): the fault has neither an Error to send nor a Delay", i, f.Match)
	}
	if f.Error == nil && f.Unsolicited {
		return fmt.Errorf("cqlsim: InjectFault(%d, match %q): Unsolicited needs an Error to send", i, f.Match)
	}
	if f.Prepare && (f.Error != nil || f.Delay <= 0) {
		return fmt.Errorf("cqlsim: InjectFault(%d, match %q): a Prepare fault delays a PREPARE: it needs a Delay and no Error", i, f.Match)
	}
	if f.Error == nil && len(f.Warnings) > 0 {
		return fmt.Errorf("cqlsim: InjectFault(%d, match %q): Warnings need an Error to travel with", i, f.Match)
	}
	if f.Times < 0 || f.Skip < 0 || f.Delay < 0 {
		return fmt.Errorf("cqlsim: InjectFault(%d, match %q): Times (%d), Skip (%d) or Delay (%v) is negative", i, f.Match, f.Times, f.Skip, f.Delay)
	}
	l := &c.nodes[i].faults
	l.mu.Lock()
	l.faults = append(l.faults, &faultState{f: f, skip: f.Skip, left: f.Times})
	l.on.Store(true)
	l.mu.Unlock()
	return nil
}

// ClearFaults removes every fault injected into node i (0-based, in Addrs order), spent or not.
func (c *Cluster) ClearFaults(i int) error {
	if i < 0 || i >= len(c.nodes) {
		return fmt.Errorf("cqlsim: ClearFaults(%d): the cluster has nodes 0 to %d", i, len(c.nodes)-1)
	}
	l := &c.nodes[i].faults
	l.mu.Lock()
	l.faults = nil
	l.on.Store(false)
	l.mu.Unlock()
	return nil
}

// fault returns the fault of the node that applies to req (the first injected that matches
// it and has no statements left to skip), or nil. Every matching fault still skipping is
// charged one skipped statement; the fault that applies is charged one of its Times.
//
// When faults are installed and req executes a prepared statement the node does not know,
// fault returns the UNPREPARED answer instead, to send as is: the statement is looked up
// once, so that a PREPARE arriving on another connection between this check and the run
// cannot make the node run a statement that the check let through without its fault.
func (c *conn) fault(req *wire.Request) (*Fault, *message.Unprepared) {
	l := &c.node.faults
	if !l.on.Load() {
		return nil, nil
	}
	prepare := req.Prepare != nil
	var texts []string
	if prepare {
		texts = []string{req.Prepare.Query}
	} else {
		var unknown []byte
		if texts, unknown = c.statementTexts(req); unknown != nil {
			return nil, unprepared(unknown)
		}
		if len(texts) == 0 {
			return nil, nil
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var applied *faultState
	for _, fs := range l.faults {
		if fs.f.Prepare != prepare || !matchesAny(texts, fs.f.Match) {
			continue
		}
		switch {
		case fs.skip > 0:
			fs.skip--
		case applied == nil:
			applied = fs
		}
	}
	if applied == nil {
		return nil, nil
	}
	if applied.f.Times > 0 {
		if applied.left--; applied.left == 0 {
			kept := make([]*faultState, 0, len(l.faults)-1)
			for _, fs := range l.faults {
				if fs != applied {
					kept = append(kept, fs)
				}
			}
			l.faults = kept
			l.on.Store(len(kept) > 0)
		}
	}
	return &applied.f, nil
}

// statementTexts returns the CQL texts of the statements req runs, or the id of the first
// prepared statement among them that the node does not know (the answer is then UNPREPARED).
func (c *conn) statementTexts(req *wire.Request) (texts []string, unknown []byte) {
	switch {
	case req.Query != nil:
		return []string{req.Query.Query}, nil
	case req.Execute != nil:
		if p, ok := c.node.lookup(req.Execute.ID); ok {
			return []string{p.Query}, nil
		}
		return nil, req.Execute.ID
	case req.Batch != nil:
		texts := make([]string, 0, len(req.Batch.Statements))
		for _, s := range req.Batch.Statements {
			if s.ID == nil {
				texts = append(texts, s.Query)
			} else if p, ok := c.node.lookup(s.ID); ok {
				texts = append(texts, p.Query)
			} else {
				return nil, s.ID
			}
		}
		return texts, nil
	}
	return nil, nil
}

// matchesAny reports whether one of texts contains match; an empty match matches any request.
func matchesAny(texts []string, match string) bool {
	if match == "" {
		return true
	}
	for _, t := range texts {
		if strings.Contains(t, match) {
			return true
		}
	}
	return false
}
