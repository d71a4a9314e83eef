package cqltype

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"net"
	"net/netip"
	"testing"
	"time"

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
	hosts := cqltest.HostsFromEnv()
	if len(hosts) == 0 {
		t.Skipf("%s is unset: this test compares encodings with a real Cassandra 5 node", cqltest.EnvHosts)
	}
	c := dialRaw(t, hosts[0])
	ks := cqltest.KeyspaceName(t)
	// DDL goes through cqltest, which waits for schema agreement (on a multi-node cluster the
	// next statement's replicas must know the change).
	cqltest.Exec(t, hosts[0], "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	t.Cleanup(func() { cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	cqltest.Exec(t, hosts[0], "CREATE TYPE "+ks+".pt (x int, label text)")
	pt := NewUDT(ks, "pt", Field{"x", tInt}, Field{"label", tText})

	// selectOne returns the value of column v of row k and its type as
	// ParseOption reads it from the server's metadata.
	selectOne := func(table string, k int) ([]byte, *Type) {
		t.Helper()
		types, rows := c.query(fmt.Sprintf("SELECT v FROM %s WHERE k = %d", table, k))
		if len(rows) != 1 || len(types) != 1 {
			t.Fatalf("%s: %d rows of %d columns", table, len(rows), len(types))
		}
		return rows[0][0], types[0]
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
	for i, tc := range cases {
		t.Run(tc.cql, func(t *testing.T) {
			c.t = t
			table := fmt.Sprintf("%s.t%d", ks, i)
			cqltest.Exec(t, hosts[0], fmt.Sprintf("CREATE TABLE %s (k int PRIMARY KEY, v %s)", table, tc.cql))
			c.query(fmt.Sprintf("INSERT INTO %s (k, v) VALUES (1, %s)", table, tc.literal))
			server, typ := selectOne(table, 1)
			if !typ.Equal(tc.typ) {
				t.Fatalf("server column type parses to %s (%#v), want %s", typ, typ, tc.typ)
			}
			mine, err := Marshal(tc.typ, tc.val)
			if err != nil {
				t.Fatal(err)
			}
			if tc.typ.Kind != KindMap || len(tc.val.(map[string]pair)) <= 1 { // one entry: order is fixed
				if !bytes.Equal(mine, server) {
					t.Errorf("server stores %x, Marshal gives %x", server, mine)
				}
			}
			got := decodeAs(t, tc.typ, server, tc.val)
			if diff := cmp.Diff(tc.val, got, cmpOpts); diff != "" {
				t.Errorf("decoding the server's bytes (-want +got):\n%s", diff)
			}
			c.query(fmt.Sprintf("INSERT INTO %s (k, v) VALUES (2, ?)", table), tc.val, tc.typ)
			if back, _ := selectOne(table, 2); !bytes.Equal(back, server) {
				t.Errorf("bound value %x stored as %x, the literal as %x", mine, back, server)
			}
		})
	}
	c.t = t
}

// zero defeats constant folding so -1/zero() is -Inf at run time.
func zero() float64 { return 0 }

// rawConn is a minimal protocol v4 client built on this package: it sends QUERY
// messages with values encoded by Append and reads result metadata with
// ParseOption. It exists so that this test depends on nothing but the server.
type rawConn struct {
	t    *testing.T
	conn net.Conn
}

func dialRaw(t *testing.T, addr string) *rawConn {
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c := &rawConn{t: t, conn: conn}
	t.Cleanup(func() { conn.Close() })
	// STARTUP with a [string map] of one entry.
	body := binary.BigEndian.AppendUint16(nil, 1)
	body = appendShortString(body, "CQL_VERSION")
	body = appendShortString(body, "3.0.0")
	if op, resp := c.roundTrip(0x01, body); op != 0x02 {
		t.Skipf("server answered STARTUP with opcode %#x (%x): this test needs a node without authentication", op, resp)
	}
	return c
}

// roundTrip sends one request frame and returns the response opcode and body.
func (c *rawConn) roundTrip(opcode byte, body []byte) (byte, []byte) {
	c.t.Helper()
	if err := c.conn.SetDeadline(time.Now().Add(2 * time.Minute)); err != nil {
		c.t.Fatal(err)
	}
	frame := []byte{0x04, 0, 0, 1, opcode}
	frame = binary.BigEndian.AppendUint32(frame, uint32(len(body)))
	if _, err := c.conn.Write(append(frame, body...)); err != nil {
		c.t.Fatal(err)
	}
	var header [9]byte
	if _, err := io.ReadFull(c.conn, header[:]); err != nil {
		c.t.Fatal(err)
	}
	resp := make([]byte, binary.BigEndian.Uint32(header[5:]))
	if _, err := io.ReadFull(c.conn, resp); err != nil {
		c.t.Fatal(err)
	}
	if header[1]&0x08 != 0 { // warnings: a [string list] before the body
		n := int(binary.BigEndian.Uint16(resp))
		resp = resp[2:]
		for range n {
			resp = resp[2+int(binary.BigEndian.Uint16(resp)):]
		}
	}
	return header[4], resp
}

// query runs cql at consistency ONE with alternating value, type arguments and
// returns the column types and rows of a rows result.
func (c *rawConn) query(cql string, args ...any) ([]*Type, [][][]byte) {
	c.t.Helper()
	body := binary.BigEndian.AppendUint32(nil, uint32(len(cql)))
	body = append(body, cql...)
	body = binary.BigEndian.AppendUint16(body, 0x0001) // ONE
	if len(args) == 0 {
		body = append(body, 0)
	} else {
		body = append(body, 0x01) // values
		body = binary.BigEndian.AppendUint16(body, uint16(len(args)/2))
		for i := 0; i < len(args); i += 2 {
			var err error
			if body, err = Append(body, args[i+1].(*Type), args[i]); err != nil {
				c.t.Fatal(err)
			}
		}
	}
	op, resp := c.roundTrip(0x07, body)
	if op == 0x00 {
		msgLen := int(binary.BigEndian.Uint16(resp[4:]))
		c.t.Fatalf("%s: server error %#x: %s", cql, binary.BigEndian.Uint32(resp), resp[6:6+msgLen])
	}
	if op != 0x08 || binary.BigEndian.Uint32(resp) != 0x0002 {
		return nil, nil // void, set keyspace or schema change
	}
	r := resp[4:]
	readInt := func() int {
		v := int(int32(binary.BigEndian.Uint32(r)))
		r = r[4:]
		return v
	}
	readString := func() {
		r = r[2+int(binary.BigEndian.Uint16(r)):]
	}
	flags, ncols := readInt(), readInt()
	if flags&0x0002 != 0 { // paging state
		if n := readInt(); n > 0 {
			r = r[n:]
		}
	}
	if flags&0x0001 != 0 { // global table spec
		readString()
		readString()
	}
	types := make([]*Type, ncols)
	for i := range types {
		if flags&0x0001 == 0 {
			readString()
			readString()
		}
		readString() // column name
		typ, n, err := ParseOption(r)
		if err != nil {
			c.t.Fatalf("%s: column %d type: %v", cql, i, err)
		}
		types[i], r = typ, r[n:]
	}
	rows := make([][][]byte, readInt())
	for i := range rows {
		for range ncols {
			n := readInt()
			var cell []byte
			if n >= 0 {
				cell, r = r[:n], r[n:]
			}
			rows[i] = append(rows[i], cell)
		}
	}
	return types, rows
}
