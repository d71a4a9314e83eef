package cqltype

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/client"
	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// TestServerEncodings compares this package with a real Cassandra node: for each
// type the server stores a CQL literal, and the test checks that the column type
// the server describes parses to the expected Type, that the server's bytes for
// the value equal Marshal's and decode to the value, and that the server accepts
// Marshal's bytes as a bound value and returns them unchanged.
//
// It only runs against a real server (CQL_HOSTS): the embedded simulator would
// be checking this package against itself.
func TestServerEncodings(t *testing.T) {
	if len(cqltest.HostsFromEnv()) == 0 {
		t.Skipf("%s is unset: this test compares encodings with a real Cassandra 5 node", cqltest.EnvHosts)
	}
	ks, hosts := cqltest.Keyspace(t)
	cqltest.Exec(t, hosts[0], "CREATE TYPE "+ks+".pt (x int, label text)")
	pt := NewUDT(ks, "pt", Field{"x", tInt}, Field{"label", tText})

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := client.NewCqlClient(hosts[0], nil).ConnectAndInit(ctx, primitive.ProtocolVersion4, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	query := func(cql string, values ...[]byte) *message.RowsResult {
		t.Helper()
		opts := &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}
		for _, v := range values {
			opts.PositionalValues = append(opts.PositionalValues, primitive.NewValue(v))
		}
		resp, err := conn.SendAndReceive(frame.NewFrame(primitive.ProtocolVersion4, 1, &message.Query{Query: cql, Options: opts}))
		if err != nil {
			t.Fatalf("%s: %v", cql, err)
		}
		switch m := resp.Body.Message.(type) {
		case *message.RowsResult:
			return m
		case message.Error:
			t.Fatalf("%s: server error: %v", cql, m)
		}
		return nil
	}
	// selectOne returns the value of column v of row k and its type as this
	// package parses it from the server's metadata.
	selectOne := func(table string, k int) ([]byte, *Type) {
		t.Helper()
		rows := query(fmt.Sprintf("SELECT v FROM %s WHERE k = %d", table, k))
		if len(rows.Data) != 1 {
			t.Fatalf("%s: %d rows", table, len(rows.Data))
		}
		var opt bytes.Buffer
		if err := datatype.WriteDataType(rows.Metadata.Columns[0].Type, &opt, primitive.ProtocolVersion4); err != nil {
			t.Fatal(err)
		}
		typ, _, err := ParseOption(opt.Bytes())
		if err != nil {
			t.Fatalf("%s: parsing the column type %x: %v", table, opt.Bytes(), err)
		}
		return rows.Data[0][0], typ
	}

	cases := []struct {
		cql     string
		literal string
		typ     *Type
		val     any // encoded with Marshal, and the decoding target type
	}{
		{"vector<float, 2>", "[1.5, -2]", NewVector(tFloat, 2), []float32{1.5, -2}},
		{"vector<int, 2>", "[1, -2]", NewVector(tInt, 2), []int32{1, -2}},
		{"vector<bigint, 2>", "[1, -2]", NewVector(tBigint, 2), []int64{1, -2}},
		{"vector<smallint, 2>", "[1, -2]", NewVector(tSmallint, 2), []int16{1, -2}},
		{"vector<tinyint, 2>", "[1, -2]", NewVector(tTinyint, 2), []int8{1, -2}},
		{"vector<text, 2>", "['a', '']", NewVector(tText, 2), []string{"a", ""}},
		{"vector<boolean, 2>", "[true, false]", NewVector(tBoolean, 2), []bool{true, false}},
		{"vector<double, 1>", "[2.5]", NewVector(tDouble, 1), []float64{2.5}},
		{"vector<date, 1>", "['1970-01-02']", NewVector(tDate, 1), []Date{1}},
		{"vector<time, 1>", "['00:00:01']", NewVector(tTime, 1), []time.Duration{time.Second}},
		{"vector<timestamp, 1>", "['1970-01-01 00:00:01+0000']", NewVector(tTimestamp, 1), []time.Time{time.Unix(1, 0).UTC()}},
		{"vector<uuid, 1>", "[6ba7b810-9dad-11d1-80b4-00c04fd430c8]", NewVector(tUUID, 1), []string{"6ba7b810-9dad-11d1-80b4-00c04fd430c8"}},
		{"vector<timeuuid, 1>", "[6ba7b810-9dad-11d1-80b4-00c04fd430c8]", NewVector(tTimeUUID, 1), []string{"6ba7b810-9dad-11d1-80b4-00c04fd430c8"}},
		{"vector<varint, 2>", "[1, -129]", NewVector(tVarint, 2), []*big.Int{big.NewInt(1), big.NewInt(-129)}},
		{"vector<decimal, 1>", "[1.25]", NewVector(tDecimal, 1), []Decimal{NewDecimal(125, 2)}},
		{"vector<inet, 1>", "['10.0.0.1']", NewVector(tInet, 1), []netip.Addr{netip.MustParseAddr("10.0.0.1")}},
		{"vector<blob, 1>", "[0x0102]", NewVector(tBlob, 1), [][]byte{{1, 2}}},
		{"vector<frozen<list<int>>, 2>", "[[1], []]", NewVector(NewList(tInt), 2), [][]int32{{1}, {}}},
		{"vector<vector<float, 2>, 2>", "[[1, 2], [3, 4]]", NewVector(NewVector(tFloat, 2), 2), [][]float32{{1, 2}, {3, 4}}},
		{"vector<frozen<pt>, 1>", "[{x: 1, label: 'a'}]", NewVector(pt, 1), []map[string]any{{"x": int32(1), "label": "a"}}},
		{"vector<frozen<tuple<int, text>>, 1>", "[(1, 'a')]", NewVector(NewTuple(tInt, tText), 1), [][]any{{int32(1), "a"}}},
		{"duration", "1mo2d3ns", tDuration, Duration{1, 2, 3}},
		{"duration", "-1y2h", tDuration, Duration{Months: -12, Nanoseconds: -2 * int64(time.Hour)}},
		{"date", "'1901-12-13'", tDate, time.Date(1901, 12, 13, 0, 0, 0, 0, time.UTC)},
		{"date", "'-0001-06-01'", tDate, Date(-719742)},
		{"varint", "-129", tVarint, big.NewInt(-129)},
		{"varint", "123456789012345678901234567890", tVarint, mustBig("123456789012345678901234567890")},
		{"decimal", "-0.005", tDecimal, NewDecimal(-5, 3)},
		{"decimal", "1.5E+10", tDecimal, NewDecimal(15, -9)},
		{"time", "'23:59:59.999999999'", tTime, time.Duration(86399999999999)},
		{"timestamp", "'1969-12-31 23:59:59.999+0000'", tTimestamp, time.UnixMilli(-1).UTC()},
		{"inet", "'::1'", tInet, netip.MustParseAddr("::1")},
		{"inet", "'192.168.0.1'", tInet, netip.MustParseAddr("192.168.0.1")},
		{"smallint", "-32768", tSmallint, int16(-32768)},
		{"tinyint", "127", tTinyint, int8(127)},
		{"float", "NaN", tFloat, float32(math.NaN())},
		{"double", "-Infinity", tDouble, -1 / zero()},
		{"frozen<map<text, frozen<tuple<int, text>>>>", "{'a': (1, 'x')}", NewMap(tText, NewTuple(tInt, tText)),
			map[string]pair{"a": {1, "x"}}},
		{"list<frozen<set<int>>>", "[{1, 2}, {}]", NewList(NewSet(tInt)), [][]int32{{1, 2}, {}}},
		{"frozen<pt>", "{x: 7}", pt, map[string]any{"x": int32(7), "label": nil}},
	}
	for i, c := range cases {
		t.Run(c.cql, func(t *testing.T) {
			table := fmt.Sprintf("%s.t%d", ks, i)
			cqltest.Exec(t, hosts[0], fmt.Sprintf("CREATE TABLE %s (k int PRIMARY KEY, v %s)", table, c.cql))
			cqltest.Exec(t, hosts[0], fmt.Sprintf("INSERT INTO %s (k, v) VALUES (1, %s)", table, c.literal))
			server, typ := selectOne(table, 1)
			if !typ.Equal(c.typ) {
				t.Fatalf("server column type parses to %s (%#v), want %s", typ, typ, c.typ)
			}
			mine, err := Marshal(c.typ, c.val)
			if err != nil {
				t.Fatal(err)
			}
			if c.typ.Kind != KindMap || len(c.val.(map[string]pair)) <= 1 { // one entry: order is fixed
				if !bytes.Equal(mine, server) {
					t.Errorf("server stores %x, Marshal gives %x", server, mine)
				}
			}
			got := decodeAs(t, c.typ, server, c.val)
			if diff := cmp.Diff(c.val, got, cmpOpts); diff != "" {
				t.Errorf("decoding the server's bytes (-want +got):\n%s", diff)
			}
			query(fmt.Sprintf("INSERT INTO %s (k, v) VALUES (2, ?)", table), mine)
			if back, _ := selectOne(table, 2); !bytes.Equal(back, server) {
				t.Errorf("bound value %x stored as %x, the literal as %x", mine, back, server)
			}
		})
	}
}

// zero defeats constant folding so -1/zero() is -Inf at run time.
func zero() float64 { return 0 }
