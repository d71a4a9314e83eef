package native

import (
	"context"
	"fmt"
	"testing"
	"time"
	"unsafe"
)

// TestStatementSize guards the size of a Statement, which batches hold by the slice: the
// rarely set options stay behind options.rare. It is a regression guard, not a benchmark.
func TestStatementSize(t *testing.T) {
	st, b, o := unsafe.Sizeof(Statement{}), unsafe.Sizeof(Batch{}), unsafe.Sizeof(options{})
	t.Logf("Statement %d bytes, Batch %d, options %d, rareOptions %d", st, b, o, unsafe.Sizeof(rareOptions{}))
	if st > 112 {
		t.Errorf("a Statement takes %d bytes, want at most 112 (keep rarely set options in rareOptions)", st)
	}
}

// observed is set by the observers of TestOptionsCopyOnWrite, which tell them apart by it.
var observed int

// describeOptions spells out every option of o, read through the accessors (nil rare options
// read as zero), so that two descriptions differ when any option does.
func describeOptions(o *options) string {
	obs := 0
	if f := o.observer(); f != nil {
		observed = -1
		f(context.Background(), Attempt{})
		obs = observed
	}
	rks, rk := o.routingKey()
	delay, attempts := o.speculative()
	return fmt.Sprintf("host=%q ts=%d timeout=%v pageSize=%d set=%b cons=%v serial=%v idem=%t trace=%t skip=%t | "+
		"paging=%v/%t ks=%q payload=%v/%t routing=%q/%v/%t spec=%v/%d retry=%v observer=%d encoded=%p",
		o.host, o.timestamp, o.timeout, o.pageSize, o.set, o.consistency, o.serialConsistency, o.idempotent, o.tracing, o.skipMetadata,
		o.pagingState(), o.pagingState() == nil, o.keyspace(), o.payload(), o.payload() == nil, rks, rk, rk == nil,
		delay, attempts, o.retry(), obs, o.encoded())
}

func describeStatement(s Statement) string {
	return fmt.Sprintf("%q %p %v | %s", s.cql, s.prepared, s.values, describeOptions(&s.opts))
}

func describeBatch(b Batch) string {
	return fmt.Sprintf("%v %d | %s", b.typ, len(b.stmts), describeOptions(&b.opts))
}

// rareChange sets one of the rare options to a value told apart by i.
type rareChange struct {
	name  string
	stmt  func(s Statement, i int) Statement // nil: no Statement method
	batch func(b Batch, i int) Batch         // nil: no Batch method
	get   func(o *options) string            // the option's value, as a string
}

func rareChanges() []rareChange {
	observer := func(i int) func(context.Context, Attempt) {
		return func(context.Context, Attempt) { observed = i }
	}
	return []rareChange{{
		name: "PagingState",
		stmt: func(s Statement, i int) Statement { return s.WithPagingState([]byte{byte(i)}) },
		get:  func(o *options) string { return fmt.Sprint(o.pagingState()) },
	}, {
		name:  "Keyspace",
		stmt:  func(s Statement, i int) Statement { return s.WithKeyspace(fmt.Sprint("ks", i)) },
		batch: func(b Batch, i int) Batch { return b.WithKeyspace(fmt.Sprint("ks", i)) },
		get:   func(o *options) string { return o.keyspace() },
	}, {
		name:  "CustomPayload",
		stmt:  func(s Statement, i int) Statement { return s.WithCustomPayload(map[string][]byte{"k": {byte(i)}}) },
		batch: func(b Batch, i int) Batch { return b.WithCustomPayload(map[string][]byte{"k": {byte(i)}}) },
		get:   func(o *options) string { return fmt.Sprint(o.payload()) },
	}, {
		name: "RoutingKey",
		stmt: func(s Statement, i int) Statement { return s.WithRoutingKey(fmt.Sprint("rks", i), []byte{byte(i)}) },
		get: func(o *options) string {
			ks, key := o.routingKey()
			return fmt.Sprint(ks, key)
		},
	}, {
		name:  "RetryPolicy",
		stmt:  func(s Statement, i int) Statement { return s.WithRetryPolicy(NextHostRetry{MaxRetries: i}) },
		batch: func(b Batch, i int) Batch { return b.WithRetryPolicy(NextHostRetry{MaxRetries: i}) },
		get:   func(o *options) string { return fmt.Sprint(o.retry()) },
	}, {
		name:  "Observer",
		stmt:  func(s Statement, i int) Statement { return s.WithObserver(observer(i)) },
		batch: func(b Batch, i int) Batch { return b.WithObserver(observer(i)) },
		get: func(o *options) string {
			observed = -1
			o.observer()(context.Background(), Attempt{})
			return fmt.Sprint(observed)
		},
	}, {
		name: "SpeculativeExecution",
		stmt: func(s Statement, i int) Statement {
			return s.WithSpeculativeExecution(time.Duration(i)*time.Millisecond, i)
		},
		batch: func(b Batch, i int) Batch {
			return b.WithSpeculativeExecution(time.Duration(i)*time.Millisecond, i)
		},
		get: func(o *options) string {
			d, n := o.speculative()
			return fmt.Sprint(d, n, o.set&setSpeculative != 0)
		},
	}, {
		name: "Values", // drops the encoded values of a next page
		stmt: func(s Statement, i int) Statement { return s.WithValues(i) },
		get:  func(o *options) string { return fmt.Sprintf("%p", o.encoded()) },
	}}
}

// fullStatement returns a statement with every option set, the rare ones to values told apart
// by 0, and values already encoded (as the next page of a Result has).
func fullStatement() Statement {
	s := Query("SELECT v FROM t WHERE k = ?", 7).WithConsistency(Quorum).WithSerialConsistency(LocalSerial).
		WithPageSize(50).WithTimestamp(1234).WithIdempotent(true).WithTracing(true).WithHost("10.0.0.1:9042").
		WithTimeout(time.Second).WithSkipMetadata(false)
	for _, c := range rareChanges() {
		s = c.stmt(s, 0)
	}
	s.opts.editRare().encoded = &encodedValues{n: 1}
	return s
}

func fullBatch() Batch {
	b := NewBatch(UnloggedBatch, Query("UPDATE t SET v = 1 WHERE k = 1")).WithConsistency(Quorum).
		WithSerialConsistency(LocalSerial).WithTimestamp(1234).WithIdempotent(true).WithTracing(true).
		WithHost("10.0.0.1:9042").WithTimeout(time.Second)
	for _, c := range rareChanges() {
		if c.batch != nil {
			b = c.batch(b, 0)
		}
	}
	return b
}

// TestOptionsCopyOnWrite pins the value semantics of Statement and Batch with the rare options
// held behind a pointer that copies share: a With method changing one of them leaves the
// receiver and every other copy unchanged, whether the receiver had rare options or none.
func TestOptionsCopyOnWrite(t *testing.T) {
	for _, c := range rareChanges() {
		var read func(Statement) string // nil for WithValues, checked apart
		if c.name != "Values" {
			read = func(s Statement) string { return c.get(&s.opts) }
		}
		for _, base := range []struct {
			name string
			s    Statement
		}{{"plain", Query("SELECT 1", 5)}, {"full", fullStatement()}} {
			t.Run("Statement.With"+c.name+"/"+base.name, func(t *testing.T) {
				a, b := checkCopyOnWrite(t, base.s, Query(""), c.stmt, describeStatement, read)
				if read == nil && (a.opts.encoded() != nil || b.opts.encoded() != nil) {
					t.Error("WithValues kept the encoded values")
				}
				if base.name == "full" && base.s.opts.rare == a.opts.rare {
					t.Error("the copy shares the receiver's rare options")
				}
			})
		}
		if c.batch == nil {
			continue
		}
		for _, base := range []struct {
			name string
			b    Batch
		}{{"plain", NewBatch(LoggedBatch)}, {"full", fullBatch()}} {
			t.Run("Batch.With"+c.name+"/"+base.name, func(t *testing.T) {
				checkCopyOnWrite(t, base.b, NewBatch(LoggedBatch), c.batch, describeBatch,
					func(b Batch) string { return c.get(&b.opts) })
			})
		}
	}
}

// checkCopyOnWrite derives two copies of base with with (a and b, changed to 1 and 2) and a
// copy of a (changed to 3), and checks that base, a and b did not change and, when read is
// not nil, that each copy reads what with gives zero for the same change.
func checkCopyOnWrite[T any](t *testing.T, base, zero T, with func(T, int) T, describe func(T) string, read func(T) string) (a, b T) {
	t.Helper()
	orig := describe(base)
	a = with(base, 1)
	descA := describe(a)
	b = with(base, 2)
	descB := describe(b)
	a2 := with(a, 3) // a change to a copy that has rare options of its own
	if got := describe(base); got != orig {
		t.Errorf("the receiver changed:\n%s\nwas\n%s", got, orig)
	}
	if got := describe(a); got != descA {
		t.Errorf("a sibling copy changed:\n%s\nwas\n%s", got, descA)
	}
	if got := describe(b); got != descB {
		t.Errorf("a sibling copy changed:\n%s\nwas\n%s", got, descB)
	}
	if read != nil {
		for i, x := range []T{a, b, a2} {
			if got, want := read(x), read(with(zero, i+1)); got != want {
				t.Errorf("copy %d reads %s, want %s", i, got, want)
			}
		}
	}
	return a, b
}

// TestOptionsInlineKeepRare checks that the With methods of the inline options keep the rare
// options of the receiver as they are, and that Add keeps a batch's.
func TestOptionsInlineKeepRare(t *testing.T) {
	s := fullStatement()
	full := describeStatement(s)
	d := s.WithConsistency(One).WithSerialConsistency(Serial).WithPageSize(0).WithTimestamp(1).
		WithIdempotent(false).WithTracing(false).WithHost("").WithTimeout(0).WithSkipMetadata(true)
	if got := describeStatement(s); got != full {
		t.Errorf("the receiver changed:\n%s\nwas\n%s", got, full)
	}
	if d.opts.rare != s.opts.rare {
		t.Error("an inline option copied the rare ones")
	}
	b := fullBatch()
	fullB := describeBatch(b)
	d2 := b.Add(Query("SELECT 1")).WithConsistency(One).WithTimeout(0).WithHost("")
	if got := describeBatch(b); got != fullB {
		t.Errorf("the receiver changed:\n%s\nwas\n%s", got, fullB)
	}
	if d2.opts.rare != b.opts.rare {
		t.Error("an inline option copied the rare ones")
	}
}

// TestNextPageStatementOwnsRare checks that the statement resuming a paged result has rare
// options of its own: the paging state and encoded values of the page, the others of the
// statement, which is unchanged.
func TestNextPageStatementOwnsRare(t *testing.T) {
	s := fullStatement()
	orig := describeStatement(s)
	vals := &encodedValues{n: 2}
	next := nextPageStatement(&reqInfo{what: s.cql, opts: s.opts, values: vals}, []byte("page 2"))
	if got := describeStatement(s); got != orig {
		t.Errorf("the statement changed:\n%s\nwas\n%s", got, orig)
	}
	if string(next.PagingState()) != "page 2" || next.opts.encoded() == nil || next.opts.encoded() == vals || next.opts.encoded().n != 2 {
		t.Errorf("next page: paging state %q, encoded %+v", next.PagingState(), next.opts.encoded())
	}
	if next.opts.keyspace() != s.opts.keyspace() || next.opts.set != s.opts.set || next.opts.host != s.opts.host {
		t.Errorf("next page options %s, statement's %s", describeStatement(*next), orig)
	}
	nextDesc := describeStatement(*next)
	_ = next.WithPagingState([]byte("page 3")).WithKeyspace("other")
	if got := describeStatement(*next); got != nextDesc {
		t.Errorf("the next page statement changed:\n%s\nwas\n%s", got, nextDesc)
	}
	if next2 := nextPageStatement(&reqInfo{what: "SELECT 1", values: vals}, []byte("p")); string(next2.PagingState()) != "p" {
		t.Errorf("next page of a statement without rare options: paging state %q", next2.PagingState())
	}
}

var sinkStatement Statement

var sinkBatch Batch

// TestInlineOptionsDoNotAllocate checks that the options compat sets on every query and batch
// (and the other inline ones) are set without an allocation.
func TestInlineOptionsDoNotAllocate(t *testing.T) {
	values := []any{1, "a"}
	q := Query("INSERT INTO t (k, v) VALUES (?, ?)", values...)
	stmts := []Statement{q, q}
	allocs := testing.AllocsPerRun(100, func() {
		sinkStatement = Query(q.cql, values...).WithSkipMetadata(false).WithConsistency(Quorum).WithTimeout(time.Second).
			WithIdempotent(true).WithSerialConsistency(Serial).WithPageSize(100).WithTimestamp(1).
			WithTracing(true).WithHost("10.0.0.1:9042").WithValues(values...)
		sinkBatch = NewBatch(UnloggedBatch, stmts...).WithConsistency(Quorum).WithIdempotent(true).
			WithTimeout(time.Second).WithSerialConsistency(Serial).WithTimestamp(1).WithTracing(true).
			WithHost("10.0.0.1:9042")
	})
	if allocs != 0 {
		t.Errorf("setting the inline options allocates %v times", allocs)
	}
}
