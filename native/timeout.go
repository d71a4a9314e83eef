package native

import "time"

// reqTimeout is a request's timeout (Config.Timeout, WithTimeout), spanning all its attempts.
//
// Nothing is armed while the caller reads its own response (conn.Call.Pump). A timeout of
// coarseMin or more is checked on the session's coarse clock when the caller has to wait, and
// its deadline is taken at the first wait (up to a pump slice after the request started), or
// before the pump when the caller's context never ends (its pump may then last up to
// conn.PumpLongSlice, and stops at the deadline): it fires up to coarseTick late. A shorter timeout is exact: its deadline is taken when the
// request starts and its timer is armed when the caller has to wait. A nil *reqTimeout, or a
// zero d, means no timeout.
type reqTimeout struct {
	timer *time.Timer // stopped when not armed
	d     time.Duration
	end   time.Time // zero until known (see above)
	armed bool
	wait  coarseWait // the registration of a coarse wait (see coarseClock)
}

// start sets the timeout of a request starting now, keeping the (stopped) timer.
func (t *reqTimeout) start(d time.Duration) {
	*t = reqTimeout{timer: t.timer, d: d}
	if d > 0 && d < coarseMin {
		t.end = time.Now().Add(d)
	}
}

// coarse reports whether the timeout is checked on the coarse clock.
func (t *reqTimeout) coarse() bool { return t != nil && t.d >= coarseMin }

// beginWait fixes the deadline of a coarse timeout at its first wait.
func (t *reqTimeout) beginWait() {
	if t.end.IsZero() {
		t.end = time.Now().Add(t.d)
	}
}

// fix fixes the deadline of a timeout now when no wait has fixed it yet (see beginWait).
func (t *reqTimeout) fix() {
	if t != nil && t.d > 0 {
		t.beginWait()
	}
}

// C returns a channel that receives when the timeout passes, arming the timer on first use;
// nil (blocks forever) when there is no timeout.
func (t *reqTimeout) C() <-chan time.Time {
	if t == nil || t.d <= 0 {
		return nil
	}
	if !t.armed {
		t.beginWait()
		t.armed = true
		t.timer.Reset(time.Until(t.end))
	}
	return t.timer.C
}

// expired reports whether the deadline is known and has passed.
func (t *reqTimeout) expired() bool {
	return t != nil && t.d > 0 && !t.end.IsZero() && !time.Now().Before(t.end)
}

// deadline returns the deadline when known, or the zero time.
func (t *reqTimeout) deadline() time.Time {
	if t == nil || t.d <= 0 {
		return time.Time{}
	}
	return t.end
}

// stop disarms the timer.
func (t *reqTimeout) stop() {
	if t != nil && t.armed {
		t.timer.Stop()
		t.armed = false
	}
}
