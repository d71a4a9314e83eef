package conn

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

const (
	statePending   uint32 = iota // sent or being sent, no response yet
	stateAbandoned               // the caller gave up; the reader recycles the call on the late response
	stateDelivered               // the response (or the connection's error) is in the call
)

// Call is one request in flight. Calls are pooled: after Release a Call must not be used.
//
// A Call completes exactly once: with a response frame, the connection's error, or the error
// given to Interrupt. Done returns a channel that receives one value at completion; receive
// from it at most once, only before Response or Release, and call Received right after (Release
// otherwise waits for that value, which is gone).
type Call struct {
	c      *Conn
	stream int16
	state  atomic.Uint32
	ch     chan struct{} // capacity 1: deliver's send never blocks

	hdr  proto.Header
	body *[]byte
	err  error
	resp *proto.Response

	got     bool // completion observed by this Call's methods
	drained bool // the token was received by this Call's methods
	decoded bool

	// sent is set, under the connection's wmu, before a write carries the call's frame (and
	// cleared when that write sent none of it): a sweep completes a call not sent with a
	// *NotSentError.
	sent atomic.Bool

	// onDone, set by StartNotify, is told of the completion instead of a token being sent.
	onDone Notified
}

// Notified is told when a call started with StartNotify completes.
type Notified interface {
	// CallDone is called once, when call completes; from then on it owns call.
	CallDone(call *Call)
}

var callPool = sync.Pool{New: func() any { return &Call{ch: make(chan struct{}, 1)} }}

func getCall() *Call { return callPool.Get().(*Call) }

// Done returns a channel that receives one value when the call completes. It also makes sure
// the connection's reader goroutine reads the response (see Pump).
func (call *Call) Done() <-chan struct{} {
	if call.state.Load() == statePending {
		call.c.kick()
	}
	return call.ch
}

// Received records that the caller received the completion token from Done. It must follow
// every receive from Done: Release receives the token itself unless Received says it is gone.
func (call *Call) Received() { call.got, call.drained = true, true }

// Completed reports whether the call has completed (its response or the connection's error is
// in), without waiting and without waking the reader goroutine.
func (call *Call) Completed() bool { return call.got || call.state.Load() == stateDelivered }

// BodySize returns the size in bytes of the response frame's body, decompressed (the size a
// compressed body announces), 0 when the call completed without a response or after Response
// decoded it. Call it only once the call has completed.
func (call *Call) BodySize() int64 {
	if call.body == nil {
		return 0
	}
	b := *call.body
	if comp := call.c.dopts.Compressor; comp != nil && call.hdr.Flags&proto.FlagCompression != 0 && len(b) > 0 {
		if n, ok := proto.DecompressedSize(comp, b); ok {
			return n
		}
	}
	return int64(len(b))
}

// Stream returns the stream id the request was sent on.
func (call *Call) Stream() int16 { return call.stream }

// wait blocks until the call is complete.
func (call *Call) wait() {
	if call.got {
		return
	}
	if call.state.Load() == stateDelivered {
		// Complete; the token is in ch, on its way, or was received from Done.
		call.got = true
		return
	}
	call.c.kick()
	<-call.ch
	call.got, call.drained = true, true
}

// Response waits for the call to complete and decodes the response in the caller's goroutine.
// It returns the connection's error (matching ErrConnClosed) if the connection failed first, a
// *proto.ErrorResponse for a server ERROR message, or an error for a malformed frame (which
// also closes the connection). The Response belongs to the Call: it stays valid until Release.
// Calling Response again returns the same values.
func (call *Call) Response() (*proto.Response, error) {
	call.wait()
	if call.decoded {
		return call.resp, call.err
	}
	call.decoded = true
	if call.err != nil {
		return nil, call.err
	}
	resp := proto.AcquireResponse()
	err := resp.Decode(call.hdr, *call.body, call.body, &call.c.dopts)
	call.body = nil // owned by resp now
	if err != nil {
		resp.Release()
		call.err = fmt.Errorf("conn %s: stream %d: %w", call.c.addr, call.stream, err)
		call.c.fail(call.err)
		return nil, call.err
	}
	switch m := resp.Msg.(type) {
	case *proto.ErrorResponse:
		resp.Release()
		call.err = m
		return nil, m
	case *proto.SetKeyspaceResult:
		ks := m.Keyspace
		call.c.keyspace.Store(&ks)
	}
	call.resp = resp
	return resp, nil
}

// Release gives the Call and its response buffers back to their pools. Releasing a call that
// has not completed abandons it: its stream id is reclaimed, and the response discarded, when
// the late response arrives. Release on nil does nothing.
func (call *Call) Release() {
	if call == nil {
		return
	}
	c := call.c // read before abandoning: the reader may recycle the call right after
	if call.state.CompareAndSwap(statePending, stateAbandoned) {
		c.kick() // the late response must still be read to free the stream
		return
	}
	if call.state.Load() != stateDelivered {
		return // already abandoned
	}
	if call.resp != nil {
		call.resp.Release()
	} else if call.body != nil {
		proto.PutBuffer(call.body)
	}
	call.recycle(true)
}

// interruptedSlot marks the slot of an interrupted call (see Interrupt): the stream id stays in
// use until the late response arrives, which the reader then drops. It is never delivered to.
var interruptedSlot = new(Call)

// Interrupt completes the call at once with err, which Response then returns, when the call is
// still waiting for its response; it returns false (and does nothing) when the call has
// completed already. Its stream id stays in use until the late response arrives, and that
// response is dropped. Unlike Release, Interrupt may be called from any goroutine, but only
// while the call's owner has not released it: the caller must make sure of that (the Call may
// otherwise have been reused for another request).
func (call *Call) Interrupt(err error) bool {
	if !call.c.slots[call.stream].CompareAndSwap(call, interruptedSlot) {
		return false // the reader (or the connection's failure) claimed it first
	}
	call.deliver(proto.Header{}, nil, err)
	return true
}

// deliver completes the call with a frame or an error. Only the goroutine that claimed the
// call's slot calls it.
func (call *Call) deliver(h proto.Header, body *[]byte, err error) {
	call.hdr, call.body, call.err = h, body, err
	if !call.state.CompareAndSwap(statePending, stateDelivered) {
		// Abandoned by its caller: nobody will read this response.
		proto.PutBuffer(body)
		call.recycle(false)
		return
	}
	if n := call.onDone; n != nil {
		// No token: n owns the call from here (see StartNotify). Neither this function nor
		// Interrupt touches the call after CallDone returns: its owner may release it
		// meanwhile.
		call.got, call.drained = true, true
		n.CallDone(call)
		return
	}
	call.ch <- struct{}{} // the last use of call by this goroutine: its owner may recycle it now
}

// recycle resets the call and returns it to the pool. delivered says a completion token was
// (or is being) sent; a token not received by the Call's methods is received first, waiting for
// it when deliver has not sent it yet, so a reused Call never sees a stale token and the
// delivering goroutine never touches a recycled Call.
func (call *Call) recycle(delivered bool) {
	if delivered && !call.drained {
		<-call.ch
	}
	call.c = nil
	call.hdr, call.body, call.err, call.resp = proto.Header{}, nil, nil, nil
	call.got, call.drained, call.decoded = false, false, false
	call.sent.Store(false)
	call.onDone = nil
	call.state.Store(statePending)
	callPool.Put(call)
}
