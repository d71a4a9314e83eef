package native

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlbridge/cqlbridge/native/internal/policy"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// errAttemptExited is the error of a speculative attempt whose goroutine a RetryPolicy or
// Observer ended with runtime.Goexit.
var errAttemptExited = errors.New("native: a speculative attempt's goroutine exited (runtime.Goexit in a RetryPolicy or Observer)")

// branch returns a copy of info with its own copy of the message, so that concurrent
// attempts can each re-prepare or change the consistency level without touching the others.
func (info *reqInfo) branch() *reqInfo {
	b := *info
	switch m := info.msg.(type) {
	case *proto.Execute:
		c := *m
		b.msg, b.consistency = &c, &c.Params.Consistency
	case *proto.Query:
		c := *m
		b.msg, b.consistency = &c, &c.Params.Consistency
	case *proto.Batch:
		c := *m
		c.Statements = slices.Clone(m.Statements)
		b.msg, b.consistency = &c, &c.Consistency
	}
	return &b
}

// sendSpeculative runs an idempotent request with speculative execution: one attempt at
// first, and another on the next node of the plan each time info.specDelay passes without
// an answer (up to info.specAttempts extra ones), or at once when all running attempts have
// failed, or in place of one that was not sent, which does not count (see Attempt.Number).
// The first success wins; the other attempts are cancelled and waited for.
func (s *Session) sendSpeculative(ctx context.Context, info *reqInfo, plan *policy.Plan, st *clusterState, timeoutC <-chan time.Time) (*Result, error) {
	type outcome struct {
		res      *Result
		err      error
		host     string
		branch   *reqInfo // the attempt's copy of info (its consistency after the retry policy)
		panicked bool     // the attempt panicked (in a user-provided policy or observer) with pv
		pv       any
	}
	if info.async && info.cbDepth == nil {
		// The attempts run in goroutines of their own on behalf of this request's, which is
		// the one Close counts: while any of them runs a callback, the request counts as in one.
		info.cbDepth = new(int)
	}
	bctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	results := make(chan outcome, len(st.pools)+1) // at most one attempt per node
	info.numbers = new(atomic.Int32)
	var failed []HostError
	launched, running := 0, 0
	launch := func() bool {
		for {
			node, ok := plan.Next()
			if !ok {
				return false
			}
			pool := st.pools[node]
			c, err := pool.pickFor(info.token, info.hasToken, info.tablet.shardOn(node))
			if err != nil {
				failed = append(failed, HostError{Host: pool.addr, Err: err})
				continue
			}
			b := info.branch()
			b.number = -1 // numbered when it starts on c (see takeNumber)
			launched++
			running++
			wg.Add(1)
			go func() {
				defer wg.Done()
				// A panic (of a RetryPolicy or Observer) goes to the caller's goroutine, where it
				// would have happened without speculative execution, instead of crashing the
				// program from this one. results has room for every attempt: the send never blocks.
				ok := false
				defer func() {
					if ok {
						return
					}
					if pv := recover(); pv != nil {
						results <- outcome{host: c.Addr(), panicked: true, pv: pv}
					} else { // runtime.Goexit
						results <- outcome{host: c.Addr(), err: errAttemptExited}
					}
				}()
				res, err := s.attempt(bctx, c, b, nil, -1)
				ok = true
				results <- outcome{res: res, err: err, host: c.Addr(), branch: b}
			}()
			return true
		}
	}
	if !launch() {
		return nil, &NoHostAvailableError{Errors: failed}
	}
	timedOut := func() error {
		return fmt.Errorf("%w after %s waiting for %q (%d attempts): %w", ErrTimeout, info.timeout, abbreviate(info.what), launched, context.DeadlineExceeded)
	}
	// ended is err, the error of the request when its timeout or context ends, matching
	// ErrNotSent too when no attempt was sent (each waited for a free stream id, say): once
	// the attempts have stopped, none holds a number (see reqInfo.numbers).
	ended := func(err error) error {
		cancel()
		wg.Wait()
		if info.numbers.Load() == 0 {
			return notSentError{err}
		}
		return err
	}
	delay := time.NewTimer(info.specDelay)
	defer delay.Stop()
	for {
		select {
		case o := <-results:
			running--
			if o.panicked {
				panic(o.pv) // the deferred cancel and wait stop the other attempts first
			}
			if o.err == nil {
				// select picks at random among ready cases: when the timeout had passed too,
				// it wins, as in roundTrip.
				select {
				case <-timeoutC:
					return nil, timedOut()
				default:
				}
				return o.res, nil
			}
			var nh *nextHostError
			var rt *retryError
			switch {
			case errors.As(o.err, &nh) && ctx.Err() != nil:
				// Not sent, as the caller's context ended: nothing more is sent.
				return nil, ended(fmt.Errorf("native: %s: %w", abbreviate(info.what), ctx.Err()))
			case errors.As(o.err, &nh) && nh.unsent:
				// Nothing was sent: no attempt, as when launch finds a node without an open
				// connection. It does not count against the speculative attempts, and the
				// next node of the plan takes the request at once.
				failed = append(failed, HostError{Host: o.host, Err: nh.err})
				launched--
				if !launch() && running == 0 {
					return nil, &NoHostAvailableError{Errors: failed}
				}
				continue
			case errors.As(o.err, &nh):
				failed = append(failed, HostError{Host: o.host, Err: nh.err})
			case errors.As(o.err, &rt):
				failed = append(failed, HostError{Host: o.host, Err: rt.err})
				// The retry runs at the level the policy chose for it (a downgrading policy), as
				// in sendPlan: the attempts launched from now on copy it.
				*info.consistency = *o.branch.consistency
			default:
				// A definitive answer (a server error), the caller's context, or work of the
				// attempt that Close cancelled (the attempts' own context, bctx, ends only
				// once this returns): with no attempt left running, waiting on would wait for
				// a timer that may never come. Another attempt may have run: the others are
				// stopped and waited for first, as in ended, so that one started on its
				// connection (sent, or on its way) has taken its number.
				cancel()
				wg.Wait()
				return nil, sentBefore(o.err, int(info.numbers.Load()))
			}
			if running == 0 && !launch() {
				return nil, &NoHostAvailableError{Errors: failed}
			}
		case <-delay.C:
			if launched <= info.specAttempts && launch() {
				delay.Reset(info.specDelay)
			}
		case <-timeoutC:
			return nil, ended(timedOut())
		case <-ctx.Done():
			return nil, ended(fmt.Errorf("native: %s: %w", abbreviate(info.what), ctx.Err()))
		}
	}
}
