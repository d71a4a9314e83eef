package native_test

import (
	"context"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// Every consistency level parses from its CQL name (the protocol spec's names), in any case
// and with surrounding blanks, and prints back as that name; anything else is an error that
// quotes the input.
func TestParseConsistency(t *testing.T) {
	for _, tc := range []struct {
		name string
		want native.Consistency
	}{
		{"ANY", native.Any}, {"ONE", native.One}, {"TWO", native.Two}, {"THREE", native.Three},
		{"QUORUM", native.Quorum}, {"ALL", native.All}, {"LOCAL_QUORUM", native.LocalQuorum},
		{"EACH_QUORUM", native.EachQuorum}, {"SERIAL", native.Serial},
		{"LOCAL_SERIAL", native.LocalSerial}, {"LOCAL_ONE", native.LocalOne},
	} {
		for _, in := range []string{tc.name, strings.ToLower(tc.name), " " + tc.name + "\t"} {
			got, err := native.ParseConsistency(in)
			if err != nil || got != tc.want {
				t.Errorf("ParseConsistency(%q) = %v, %v; want %v", in, got, err, tc.want)
			}
		}
		if got := tc.want.String(); got != tc.name {
			t.Errorf("%d.String() = %q, want %q", uint16(tc.want), got, tc.name)
		}
	}
	for _, bad := range []string{"", "QUORUMS", "LOCAL QUORUM", "4", "CONSISTENCY(0xb)"} {
		c, err := native.ParseConsistency(bad)
		if err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("ParseConsistency(%q) = %v, %v; want an error quoting the input", bad, c, err)
		}
	}
}

// retryNothing is a RetryPolicy told apart from others by its identity.
type retryNothing struct{ id int }

func (*retryNothing) Retry(context.Context, *native.Attempt) native.RetryDecision {
	return native.RetryDecision{}
}

// The getters of a Statement report what its With methods set, and their defaults otherwise.
func TestStatementAccessors(t *testing.T) {
	st := native.Query("SELECT v FROM t WHERE k = ?", 7, "x")
	if got := st.CQL(); got != "SELECT v FROM t WHERE k = ?" {
		t.Errorf("CQL() = %q", got)
	}
	if st.Prepared() != nil {
		t.Error("Prepared() of a simple statement is not nil")
	}
	if vals := st.Values(); len(vals) != 2 || vals[0] != 7 || vals[1] != "x" {
		t.Errorf("Values() = %v", vals)
	}
	if n, set := st.PageSize(); set || n != 0 {
		t.Errorf("PageSize() of a new statement = %d, %t", n, set)
	}
	if st.Idempotent() || st.RetryPolicy() != nil {
		t.Errorf("new statement: Idempotent() %t, RetryPolicy() %v", st.Idempotent(), st.RetryPolicy())
	}
	rp := &retryNothing{id: 1}
	st2 := st.WithPageSize(25).WithIdempotent(true).WithRetryPolicy(rp).WithValues(8)
	if n, set := st2.PageSize(); !set || n != 25 {
		t.Errorf("PageSize() = %d, %t; want 25, true", n, set)
	}
	if !st2.Idempotent() || st2.RetryPolicy() != native.RetryPolicy(rp) {
		t.Errorf("Idempotent() %t, RetryPolicy() %v; want true, %v", st2.Idempotent(), st2.RetryPolicy(), rp)
	}
	if vals := st2.Values(); len(vals) != 1 || vals[0] != 8 {
		t.Errorf("Values() after WithValues(8) = %v", vals)
	}
	// The original is unchanged.
	if _, set := st.PageSize(); set || st.Idempotent() || st.RetryPolicy() != nil || len(st.Values()) != 2 {
		t.Error("the With methods changed the statement they were called on")
	}
	if got := native.NewBatch(native.CounterBatch).Type(); got != native.CounterBatch {
		t.Errorf("Batch.Type() = %v, want CounterBatch", got)
	}
}

// A prepared statement reports its text, a statement bound from it its origin, and a session
// whether it was closed.
func TestPreparedAndSessionAccessors(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE acc WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE acc.t (k int PRIMARY KEY, v text)")
	const cql = "SELECT v FROM acc.t WHERE k = ?"
	p, err := s.Prepare(ctxT(t), cql)
	if err != nil {
		t.Fatal(err)
	}
	if p.CQL() != cql {
		t.Errorf("Prepared.CQL() = %q, want %q", p.CQL(), cql)
	}
	st := p.Bind(1)
	if st.Prepared() != p || st.CQL() != cql {
		t.Errorf("bound statement: Prepared() %p (want %p), CQL() %q", st.Prepared(), p, st.CQL())
	}
	if s.Closed() {
		t.Error("Closed() before Close")
	}
	s.Close()
	if !s.Closed() {
		t.Error("Closed() after Close is false")
	}
	if _, err := s.Execute(ctxT(t), st.WithTimeout(time.Second)); err == nil {
		t.Error("Execute after Close succeeded")
	}
}

// A simple statement's values are sent as the CQL type their Go type stands for (see
// Query): each is written to a column of that type on the server and read back unchanged,
// and a value of a Go type with no such CQL type is refused before anything is sent.
func TestSimpleStatementValueTypes(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE inf WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	uuid, err := cqltype.ParseUUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
	if err != nil {
		t.Fatal(err)
	}
	day, err := cqltype.DateOf(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		cqlType string
		value   any
	}{
		{"bigint", 1 << 30}, {"bigint", int64(-1 << 40)}, {"bigint", uint32(4000000000)},
		{"int", int32(-7)}, {"smallint", int16(-300)}, {"tinyint", int8(-5)},
		{"text", "héllo"}, {"blob", []byte{0, 1, 0xff}}, {"boolean", true},
		{"float", float32(2.5)}, {"double", -0.125},
		{"timestamp", time.UnixMilli(1700000000123).UTC()}, {"uuid", uuid},
		{"inet", netip.MustParseAddr("10.0.0.1")}, {"inet", net.ParseIP("2001:db8::1")},
		{"varint", new(big.Int).Lsh(big.NewInt(3), 70)}, {"decimal", cqltype.NewDecimal(-12345, 3)},
		{"date", day}, {"duration", cqltype.Duration{Months: 1, Days: 2, Nanoseconds: 3}},
		{"list<text>", []string{"a", "b"}}, {"list<bigint>", []int{1, 2}}, {"list<bigint>", []int64{3}},
		{"list<int>", []int32{4, 5}}, {"list<double>", []float64{0.5}},
		{"map<text, text>", map[string]string{"k": "v"}}, {"map<text, bigint>", map[string]int{"n": 9}},
	} {
		table := "inf.t" + strconv.Itoa(i)
		mustExec(t, s, "CREATE TABLE "+table+" (k int PRIMARY KEY, v "+tc.cqlType+")")
		if _, err := s.Execute(ctxT(t), native.Query("INSERT INTO "+table+" (k, v) VALUES (?, ?)", int32(1), tc.value)); err != nil {
			t.Errorf("%T into a %s column: %v", tc.value, tc.cqlType, err)
			continue
		}
		row, ok := mustExec(t, s, "SELECT v FROM "+table+" WHERE k = 1").First()
		if !ok {
			t.Errorf("%T into a %s column: no row read back", tc.value, tc.cqlType)
			continue
		}
		got := reflect.New(reflect.TypeOf(tc.value))
		if err := row.Scan(got.Interface()); err != nil {
			t.Errorf("%T from a %s column: %v", tc.value, tc.cqlType, err)
			continue
		}
		if g, w := fmt.Sprintf("%v", got.Elem().Interface()), fmt.Sprintf("%v", tc.value); g != w {
			t.Errorf("%T through a %s column: read back %s, wrote %s", tc.value, tc.cqlType, g, w)
		}
	}
	type point struct{ X, Y int }
	_, err = s.Execute(ctxT(t), native.Query("INSERT INTO inf.t0 (k, v) VALUES (?, ?)", int32(2), point{1, 2}))
	if err == nil || !strings.Contains(err.Error(), "native_test.point") || !strings.Contains(err.Error(), "cannot infer") {
		t.Errorf("a struct value in a simple statement: err = %v, want one naming its type and saying it cannot infer a CQL type", err)
	}
}

// A RetryAction prints as its name, for policies' logs and test failures.
func TestRetryActionString(t *testing.T) {
	for a, want := range map[native.RetryAction]string{
		native.Fail: "Fail", native.RetrySameHost: "RetrySameHost", native.RetryNextHost: "RetryNextHost",
		native.Ignore: "Ignore", native.RetryAction(9): "RetryAction(9)",
	} {
		if got := a.String(); got != want {
			t.Errorf("RetryAction(%d).String() = %q, want %q", uint8(a), got, want)
		}
	}
}
