package native

import "sync"

// goroutineSet counts the goroutines that Session.Close waits for (background work and
// asynchronous requests), as a sync.WaitGroup would, and how many of them are running a
// user's callback that may call Close (Config.OnConnect; the Observer or RetryPolicy of an
// asynchronous request). Wait waits only for the others: a callback that calls Close would
// otherwise wait for its own goroutine, which cannot end before the callback returns.
type goroutineSet struct {
	mu      sync.Mutex
	changed sync.Cond // on mu (set by Wait); broadcast when Wait's condition may have changed
	running int       // goroutines added and not done
	// inCallback is how many running goroutines are in a callback (a member whose speculative
	// attempts, in goroutines of their own, are in callbacks counts once: see callback).
	inCallback int
}

// Add adds n goroutines to wait for. As with a WaitGroup, an Add made while the set may be
// empty must happen before Wait; Session.enter orders it.
func (g *goroutineSet) Add(n int) {
	g.mu.Lock()
	g.running += n
	g.mu.Unlock()
}

// Done marks one goroutine as ended.
func (g *goroutineSet) Done() {
	g.mu.Lock()
	g.running--
	if g.running < 0 {
		g.mu.Unlock()
		panic("native: goroutineSet.Done without Add")
	}
	g.changed.Broadcast()
	g.mu.Unlock()
}

// Wait waits until every goroutine added has ended or is running a callback.
func (g *goroutineSet) Wait() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.changed.L == nil {
		g.changed.L = &g.mu
	}
	for g.running > g.inCallback {
		g.changed.Wait()
	}
}

// callback runs f, a user's callback. When inSet, the calling goroutine is one of the set,
// which Wait then does not wait for until f returns; otherwise f just runs. depth, when not nil,
// is shared by goroutines working for one member of the set (the speculative attempts of an
// asynchronous request, which its goroutine waits for): the member counts as in a callback while
// any of them is, once however many are, so that Wait still waits for the other members.
func (g *goroutineSet) callback(inSet bool, depth *int, f func()) {
	if !inSet {
		f()
		return
	}
	g.mu.Lock()
	if depth != nil {
		*depth++
	}
	if depth == nil || *depth == 1 {
		g.inCallback++
		g.changed.Broadcast()
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		if depth != nil {
			*depth--
		}
		if depth == nil || *depth == 0 {
			g.inCallback--
		}
		g.mu.Unlock()
	}()
	f()
}
