// Package conn is one CQL native protocol connection of the native core: dialing (TCP or TLS),
// the handshake (OPTIONS, STARTUP with compression, SASL authentication, USE), and multiplexed
// requests over up to 32768 stream ids.
//
// Each connection runs one writer goroutine, which takes every request already queued and
// writes them with a single Write call (no timers: a lone request is written at once), and one
// reader goroutine, which reads frames into pooled buffers and hands each to the request
// waiting on its stream through that request's own buffered channel. Requests are encoded in
// the caller's goroutine, and responses are decoded there too (Call.Response), so the two
// connection goroutines only move bytes.
//
// A request alone on its connection skips both hand-offs: its caller writes the frame itself
// (Start) and may read the response itself (Call.Pump), exactly as a bare socket loop would.
// Only one goroutine reads at a time; the reader goroutine takes over whenever a caller waits
// on Done, and reads an idle connection after a short interval so a closed socket is noticed.
//
// On Linux a TCP connection is read and written with raw read(2) and write(2) calls
// (internal/rawio): the runtime's poller still waits for the socket, but the calls skip the
// scheduler's system-call bookkeeping, whose wake-up of the runtime's monitor thread after
// every idle period was the largest single CPU cost of a request.
//
// When every stream id is taken, new requests wait for one (respecting their context) instead
// of failing. A request whose context ends returns ctx.Err() at once; its stream id stays
// reserved until the server's late response arrives, and that response is then discarded.
// Idle connections send OPTIONS every HeartbeatInterval and close when one goes unanswered for
// HeartbeatTimeout. A connection also sends an OPTIONS, whose answer it discards, when Cassandra
// refuses a v3/v4 request as over its frame limit ("Request is too big: ..."): the node leaves
// unread the requests that came in the same read as the end of that frame until more bytes
// arrive, and the OPTIONS is those bytes. Close, or a broken connection, fails every pending request with an error
// that matches ErrConnClosed and wraps the cause, and also ErrNotSent for a request whose
// frame was not written.
package conn
