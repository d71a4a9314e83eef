package native

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cqlbridge/cqlbridge/native/internal/policy"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

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
// failed. The first success wins; the other attempts are cancelled and waited for.
func (s *Session) sendSpeculative(ctx context.Context, info *reqInfo, plan *policy.Plan, st *clusterState, timeoutC <-chan time.Time) (*Result, error) {
	type outcome struct {
		res  *Result
		err  error
		host string
	}
	bctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	results := make(chan outcome, len(st.pools)+1) // at most one attempt per node
	var failed []HostError
	launched, running := 0, 0
	launch := func() bool {
		for {
			node, ok := plan.Next()
			if !ok {
				return false
			}
			pool := st.pools[node]
			c, err := pool.pick()
			if err != nil {
				failed = append(failed, HostError{Host: pool.addr, Err: err})
				continue
			}
			b := info.branch()
			number := launched
			launched++
			running++
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := s.attempt(bctx, c, b, nil, number)
				results <- outcome{res: res, err: err, host: c.Addr()}
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
	delay := time.NewTimer(info.specDelay)
	defer delay.Stop()
	for {
		select {
		case o := <-results:
			running--
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
			case errors.As(o.err, &nh):
				failed = append(failed, HostError{Host: o.host, Err: nh.err})
			case errors.As(o.err, &rt):
				failed = append(failed, HostError{Host: o.host, Err: rt.err})
			case errors.Is(o.err, context.Canceled) && ctx.Err() == nil:
				continue // cancelled by us; cannot happen before we return, but be safe
			default:
				return nil, o.err // a definitive answer (a server error) or the caller's context
			}
			if running == 0 && !launch() {
				return nil, &NoHostAvailableError{Errors: failed}
			}
		case <-delay.C:
			if launched <= info.specAttempts && launch() {
				delay.Reset(info.specDelay)
			}
		case <-timeoutC:
			return nil, timedOut()
		case <-ctx.Done():
			return nil, fmt.Errorf("native: %s: %w", abbreviate(info.what), ctx.Err())
		}
	}
}
