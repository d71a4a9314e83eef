package gocql

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// QueryObserver receives one ObservedQuery per attempt of every query, including retries,
// speculative executions and the fetch of every page.
type QueryObserver interface {
	// ObserveQuery is called synchronously in the executing goroutine after each attempt,
	// before the retry decision is taken. It is not called when the session is closed or
	// no host could be tried. A SELECT matching no rows reports a nil Err.
	ObserveQuery(context.Context, ObservedQuery)
}

// BatchObserver receives one ObservedBatch per attempt of every batch.
type BatchObserver interface {
	// ObserveBatch is called synchronously in the executing goroutine after each batch
	// attempt. It is not called when the session is closed or no host could be tried.
	ObserveBatch(context.Context, ObservedBatch)
}

// ConnectObserver receives one ObservedConnect per connection the driver opens.
type ConnectObserver interface {
	// ObserveConnect is called after each dial, successful or not.
	ObserveConnect(ObservedConnect)
}

// FrameHeaderObserver would receive every frame header read from the network. The native
// core does not expose frame headers, so a configured FrameHeaderObserver is never called;
// docs/deviations.md lists this.
type FrameHeaderObserver interface {
	// ObserveFrameHeader is called for each received frame header.
	ObserveFrameHeader(context.Context, ObservedFrameHeader)
}

// StreamObserver would be told about every stream (request) on a connection. The native core
// does not expose streams, so a configured StreamObserver is never called; docs/deviations.md
// lists this.
type StreamObserver interface {
	// StreamContext is called before a stream is created; it may return nil.
	StreamContext(ctx context.Context) StreamObserverContext
}

// StreamObserverContext follows one stream.
type StreamObserverContext interface {
	// StreamStarted is called just before the request is written.
	StreamStarted(observedStream ObservedStream)
	// StreamAbandoned is called when the driver stops waiting for the response.
	StreamAbandoned(observedStream ObservedStream)
	// StreamFinished is called when the response arrives.
	StreamFinished(observedStream ObservedStream)
}

// ObservedStream identifies the host of an observed stream.
type ObservedStream struct {
	// Host of the connection used to send the stream.
	Host *HostInfo
}

// hostMetrics are the attempt count and summed latency of one query against one host.
type hostMetrics struct {
	// Attempts is how many times the query was attempted on this host (retries and page
	// fetches included).
	Attempts int
	// TotalLatency is the sum of the attempts' latencies on this host, in nanoseconds.
	TotalLatency int64
}

// queryMetrics accumulates per-host metrics for one Query or Batch; it is shared between a
// query and its WithContext copies, as gocql's is.
type queryMetrics struct {
	mu            sync.Mutex
	hosts         []hostEntry // one entry per host tried; most queries try one
	first         [1]hostEntry
	totalAttempts int
}

type hostEntry struct {
	host *HostInfo
	m    hostMetrics
}

func newQueryMetrics() *queryMetrics {
	return (&queryMetrics{}).init()
}

// init readies zero metrics for use and returns them.
func (qm *queryMetrics) init() *queryMetrics {
	qm.hosts = qm.first[:0]
	return qm
}

// hostMetrics returns a copy of the metrics of host.
func (qm *queryMetrics) hostMetrics(host *HostInfo) *hostMetrics {
	qm.mu.Lock()
	defer qm.mu.Unlock()
	out := new(hostMetrics)
	if hm := qm.find(host); hm != nil {
		*out = *hm
	}
	return out
}

func (qm *queryMetrics) attempts() int {
	if qm == nil { // a Batch or Query written as a struct literal
		return 0
	}
	qm.mu.Lock()
	defer qm.mu.Unlock()
	return qm.totalAttempts
}

func (qm *queryMetrics) addAttempts(i int, host *HostInfo) int {
	if qm == nil {
		return 0
	}
	qm.mu.Lock()
	defer qm.mu.Unlock()
	hm := qm.get(host)
	hm.Attempts += i
	qm.totalAttempts += i
	return hm.Attempts
}

// attempt records one attempt of duration d on host and returns the number of attempts made
// before it.
func (qm *queryMetrics) attempt(d time.Duration, host *HostInfo) int {
	qm.mu.Lock()
	defer qm.mu.Unlock()
	before := qm.totalAttempts
	hm := qm.get(host)
	hm.Attempts++
	hm.TotalLatency += d.Nanoseconds()
	qm.totalAttempts++
	return before
}

func (qm *queryMetrics) addLatency(l int64, host *HostInfo) {
	if qm == nil {
		return
	}
	qm.mu.Lock()
	defer qm.mu.Unlock()
	qm.get(host).TotalLatency += l
}

// latency is the mean latency per attempt over all hosts, in nanoseconds.
func (qm *queryMetrics) latency() int64 {
	if qm == nil { // a Batch or Query written as a struct literal
		return 0
	}
	qm.mu.Lock()
	defer qm.mu.Unlock()
	var attempts int
	var total int64
	for i := range qm.hosts {
		attempts += qm.hosts[i].m.Attempts
		total += qm.hosts[i].m.TotalLatency
	}
	if attempts == 0 {
		return 0
	}
	return total / int64(attempts)
}

func (qm *queryMetrics) find(host *HostInfo) *hostMetrics {
	for i := range qm.hosts {
		if qm.hosts[i].host == host {
			return &qm.hosts[i].m
		}
	}
	return nil
}

func (qm *queryMetrics) get(host *HostInfo) *hostMetrics {
	if hm := qm.find(host); hm != nil {
		return hm
	}
	if qm.hosts == nil {
		qm.hosts = qm.first[:0]
	}
	qm.hosts = append(qm.hosts, hostEntry{host: host})
	return &qm.hosts[len(qm.hosts)-1].m
}

// ObservedQuery describes one attempt of a query.
type ObservedQuery struct {
	// Keyspace is the session's keyspace (not the statement's).
	Keyspace string
	// Statement is the CQL text.
	Statement string
	// Values are the bound values; they are shared, do not modify them.
	Values []interface{}
	// Start is the time immediately before the attempt was sent.
	Start time.Time
	// End is the time immediately after the attempt returned.
	End time.Time
	// Rows is the number of rows in this attempt's page.
	Rows int
	// Host is the host that ran the attempt.
	Host *HostInfo
	// Metrics is a copy of this query's metrics for Host after the attempt.
	Metrics *hostMetrics
	// Err is the attempt's error; a SELECT matching no rows reports nil.
	Err error
	// Attempt is the 0-based index of the attempt over all executions of this *Query.
	Attempt int
}

// ObservedBatch describes one attempt of a batch.
type ObservedBatch struct {
	// Keyspace is the session's keyspace.
	Keyspace string
	// Statements are the batch entries' CQL texts.
	Statements []string
	// Values[i] are the values bound to Statements[i]; they are shared, do not modify them.
	Values [][]interface{}
	// Start is the time immediately before the attempt was sent.
	Start time.Time
	// End is the time immediately after the attempt returned.
	End time.Time
	// Host is the host that ran the attempt.
	Host *HostInfo
	// Err is the attempt's error.
	Err error
	// Metrics is a copy of this batch's metrics for Host after the attempt.
	Metrics *hostMetrics
	// Attempt is the 0-based index of the attempt over all executions of this *Batch.
	Attempt int
}

// ObservedConnect describes one connection attempt.
type ObservedConnect struct {
	// Host is the host dialled.
	Host *HostInfo
	// Start is the time immediately before the dial.
	Start time.Time
	// End is the time immediately after the dial returned.
	End time.Time
	// Err is the dial error, if any.
	Err error
}

// protoVersion is a frame header's version byte (the direction bit included).
type protoVersion byte

func (p protoVersion) String() string {
	dir := "REQ"
	if p&0x80 != 0 {
		dir = "RESP"
	}
	return fmt.Sprintf("[version=%d direction=%s]", byte(p)&0x7f, dir)
}

// frameOp is a frame header's opcode.
type frameOp byte

var frameOpNames = map[frameOp]string{
	0x00: "ERROR", 0x01: "STARTUP", 0x02: "READY", 0x03: "AUTHENTICATE", 0x05: "OPTIONS",
	0x06: "SUPPORTED", 0x07: "QUERY", 0x08: "RESULT", 0x09: "PREPARE", 0x0A: "EXECUTE",
	0x0B: "REGISTER", 0x0C: "EVENT", 0x0D: "BATCH", 0x0E: "AUTH_CHALLENGE",
	0x0F: "AUTH_RESPONSE", 0x10: "AUTH_SUCCESS",
}

func (f frameOp) String() string {
	if s, ok := frameOpNames[f]; ok {
		return s
	}
	return fmt.Sprintf("UNKNOWN_OP_%d", byte(f))
}

// ObservedFrameHeader describes a frame header read from the network.
type ObservedFrameHeader struct {
	Version protoVersion
	Flags   byte
	Stream  int16
	Opcode  frameOp
	Length  int32
	// Start is when reading the header began.
	Start time.Time
	// End is when reading the header finished.
	End time.Time
	// Host is the host of the connection the header was read from.
	Host *HostInfo
}

// String describes the header for logs.
func (f ObservedFrameHeader) String() string {
	return fmt.Sprintf("[observed header version=%s flags=0x%x stream=%d op=%s length=%d]",
		f.Version, f.Flags, f.Stream, f.Opcode, f.Length)
}
