package native

import "time"

// reqTimeout is a request's timeout (Config.Timeout, WithTimeout). Its timer is armed only when
// a goroutine has to wait: a request whose response its caller read directly (conn.Call.Pump)
// checks the clock instead, which spares a timer modification (and the wake-up of an idle
// processor it causes) per request. A nil *reqTimeout, or a zero d, means no timeout.
type reqTimeout struct {
	timer *time.Timer // stopped when not armed
	d     time.Duration
	end   time.Time
	armed bool
}

// start sets the timeout of a request starting now.
func (t *reqTimeout) start(timer *time.Timer, d time.Duration) {
	*t = reqTimeout{timer: timer, d: d}
	if d > 0 {
		t.end = time.Now().Add(d)
	}
}

// C returns a channel that receives when the timeout passes, arming the timer on first use;
// nil (blocks forever) when there is no timeout.
func (t *reqTimeout) C() <-chan time.Time {
	if t == nil || t.d <= 0 {
		return nil
	}
	if !t.armed {
		t.armed = true
		t.timer.Reset(time.Until(t.end))
	}
	return t.timer.C
}

// expired reports whether the timeout has passed.
func (t *reqTimeout) expired() bool {
	return t != nil && t.d > 0 && !time.Now().Before(t.end)
}

// deadline returns when the timeout passes, or the zero time.
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
