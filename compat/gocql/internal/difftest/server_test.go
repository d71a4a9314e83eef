package difftest

import (
	"fmt"
	"math/big"
	"net"
	"testing"
	"time"

	compat "github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	legacy "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"
	"gopkg.in/inf.v0"
)

// rawValue binds bytes produced by compat.Marshal through gocql's
// transport unchanged.
type rawValue []byte

func (r rawValue) MarshalCQL(legacy.TypeInfo) ([]byte, error) { return r, nil }

// rawCapture receives a column's bytes as the server sent them.
type rawCapture struct {
	info legacy.TypeInfo
	data []byte
}

func (r *rawCapture) UnmarshalCQL(info legacy.TypeInfo, data []byte) error {
	r.info, r.data = info, append([]byte(nil), data...)
	return nil
}

// TestServerAcceptsAndReturnsCompatEncodings writes a value of every CQL
// type encoded by compat.Marshal to a real server, reads the column back as
// raw bytes, and decodes it with compat.Unmarshal. gocql v1.7.0 only carries
// the bytes; the encodings and decodings under test are compat's.
func TestServerAcceptsAndReturnsCompatEncodings(t *testing.T) {
	if cqltest.HostsFromEnv() == nil {
		t.Skip("set CQL_HOSTS (e.g. CQL_HOSTS=127.0.0.1) to run against a real server")
	}
	ks, hosts := cqltest.Keyspace(t)
	cqltest.Exec(t, hosts[0], "CREATE TYPE "+ks+".person (name text, age int, tags set<text>)")
	// Each column has a Go value, the same value as a CQL literal, the
	// destination to decode into and the value expected there.
	columns := []struct {
		name, cqlType string
		info          compat.TypeInfo
		value         interface{}
		literal       string
		dest          func() interface{}
		want          interface{}
	}{
		{"c_ascii", "ascii", native(compat.TypeAscii), "abc", "'abc'", func() interface{} { return new(string) }, "abc"},
		{"c_bigint", "bigint", native(compat.TypeBigInt), int64(-5), "-5", func() interface{} { return new(int64) }, int64(-5)},
		{"c_blob", "blob", native(compat.TypeBlob), []byte{1, 2}, "0x0102", func() interface{} { return new([]byte) }, []byte{1, 2}},
		{"c_boolean", "boolean", native(compat.TypeBoolean), true, "true", func() interface{} { return new(bool) }, true},
		{"c_decimal", "decimal", native(compat.TypeDecimal), inf.NewDec(-12345, 3), "-12.345", func() interface{} { return new(inf.Dec) }, *inf.NewDec(-12345, 3)},
		{"c_double", "double", native(compat.TypeDouble), 2.5, "2.5", func() interface{} { return new(float64) }, 2.5},
		{"c_float", "float", native(compat.TypeFloat), float32(1.25), "1.25", func() interface{} { return new(float32) }, float32(1.25)},
		{"c_int", "int", native(compat.TypeInt), "-7", "-7", func() interface{} { return new(int32) }, int32(-7)},
		{"c_text", "text", native(compat.TypeVarchar), "héllo", "'héllo'", func() interface{} { return new(string) }, "héllo"},
		{"c_timestamp", "timestamp", native(compat.TypeTimestamp), time.Date(2024, 2, 29, 13, 14, 15, 123_456_789, time.UTC),
			"'2024-02-29 13:14:15.123+0000'", func() interface{} { return new(time.Time) }, time.Date(2024, 2, 29, 13, 14, 15, 123_000_000, time.UTC)},
		{"c_uuid", "uuid", native(compat.TypeUUID), sampleUUIDv4.String(), sampleUUIDv4.String(), func() interface{} { return new(compat.UUID) }, sampleUUIDv4},
		{"c_varint", "varint", native(compat.TypeVarint), bigInt("-1180591620717411303424"), "-1180591620717411303424",
			func() interface{} { return new(big.Int) }, *bigInt("-1180591620717411303424")},
		{"c_varint_small", "varint", native(compat.TypeVarint), uint64(128), "128", func() interface{} { return new(int64) }, int64(128)},
		{"c_timeuuid", "timeuuid", native(compat.TypeTimeUUID), sampleUUID, sampleUUID.String(), func() interface{} { return new(time.Time) }, sampleUUID.Time()},
		{"c_inet", "inet", native(compat.TypeInet), "2001:db8::1", "'2001:db8::1'", func() interface{} { return new(net.IP) }, net.ParseIP("2001:db8::1")},
		{"c_inet4", "inet", native(compat.TypeInet), net.IPv4(10, 1, 2, 3), "'10.1.2.3'", func() interface{} { return new(string) }, "10.1.2.3"},
		{"c_date", "date", native(compat.TypeDate), "1969-07-20", "'1969-07-20'", func() interface{} { return new(time.Time) }, time.Date(1969, 7, 20, 0, 0, 0, 0, time.UTC)},
		{"c_time", "time", native(compat.TypeTime), 13*time.Hour + time.Nanosecond, "'13:00:00.000000001'",
			func() interface{} { return new(time.Duration) }, 13*time.Hour + time.Nanosecond},
		{"c_smallint", "smallint", native(compat.TypeSmallInt), uint16(65535), "-1", func() interface{} { return new(int16) }, int16(-1)},
		{"c_tinyint", "tinyint", native(compat.TypeTinyInt), int8(-3), "-3", func() interface{} { return new(int) }, -3},
		{"c_duration", "duration", native(compat.TypeDuration), compat.Duration{Months: -1, Days: -2, Nanoseconds: -3}, "-1mo2d3ns",
			func() interface{} { return new(compat.Duration) }, compat.Duration{Months: -1, Days: -2, Nanoseconds: -3}},
		{"c_list", "list<int>", list(4, compat.TypeList, native(compat.TypeInt)), []int{3, 1, 2}, "[3, 1, 2]",
			func() interface{} { return new([]int) }, []int{3, 1, 2}},
		{"c_set", "set<text>", list(4, compat.TypeSet, native(compat.TypeText)), []string{"a", "b"}, "{'b', 'a'}",
			func() interface{} { return new([]string) }, []string{"a", "b"}},
		{"c_map", "map<text, int>", mapOf(4, native(compat.TypeText), native(compat.TypeInt)), map[string]int{"x": 1}, "{'x': 1}",
			func() interface{} { return new(map[string]int) }, map[string]int{"x": 1}},
		{"c_tuple", "tuple<int, text>", tuple(native(compat.TypeInt), native(compat.TypeText)), []interface{}{1, "t"}, "(1, 't')",
			func() interface{} { return new(tuplePair) }, tuplePair{1, "t"}},
		{"c_udt", "frozen<person>", personUDT(), personTagged{"ann", 42, []string{"x"}}, "{name: 'ann', age: 42, tags: {'x'}}",
			func() interface{} { return new(map[string]interface{}) },
			map[string]interface{}{"name": "ann", "age": 42, "tags": []string{"x"}}},
	}

	ddl := "CREATE TABLE " + ks + ".t (k int PRIMARY KEY"
	for _, c := range columns {
		ddl += ", " + c.name + " " + c.cqlType
	}
	cqltest.Exec(t, hosts[0], ddl+")")

	cluster := legacy.NewCluster(hosts...)
	cluster.Keyspace = ks
	cluster.ProtoVersion = 4
	cluster.Consistency = legacy.One
	cluster.Timeout = 30 * time.Second
	session, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("connecting to %v: %v", hosts, err)
	}
	defer session.Close()

	read := func(name string, k int) (rawCapture, error) {
		var got rawCapture
		err := session.Query(fmt.Sprintf("SELECT %s FROM t WHERE k = ?", name), k).Scan(&got)
		return got, err
	}
	// gocql hands tuple columns to Scan one component at a time; the
	// components are framed back into the tuple's encoding.
	readTuple := func(name string, k int) (rawCapture, error) {
		var first, second rawCapture
		if err := session.Query(fmt.Sprintf("SELECT %s FROM t WHERE k = ?", name), k).Scan(&first, &second); err != nil {
			return rawCapture{}, err
		}
		var data []byte
		for _, part := range []rawCapture{first, second} {
			n := len(part.data)
			if part.data == nil {
				n = -1
			}
			data = append(data, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
			data = append(data, part.data...)
		}
		return rawCapture{info: legacyInfo(tuple(native(compat.TypeInt), native(compat.TypeText))), data: data}, nil
	}
	for i, c := range columns {
		encoded, err := compat.Marshal(c.info, c.value)
		if err != nil {
			t.Errorf("%s: Marshal(%s, %#v): %v", c.name, c.info, c.value, err)
			continue
		}

		// The server's own encoding of the literal is compat's encoding.
		cqltest.Exec(t, hosts[0], fmt.Sprintf("INSERT INTO %s.t (k, %s) VALUES (%d, %s)", ks, c.name, 1000+i, c.literal))
		readBack := read
		if c.info.Type() == compat.TypeTuple {
			readBack = readTuple
		}
		fromLiteral, err := readBack(c.name, 1000+i)
		if err != nil {
			t.Errorf("%s: reading the literal back: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(fromLiteral.data, encoded); diff != "" {
			t.Errorf("%s: the server encodes %s differently from compat.Marshal(%#v) (-server +compat):\n%s", c.name, c.literal, c.value, diff)
		}
		if fromLiteral.info.Type() != legacy.Type(c.info.Type()) {
			t.Errorf("%s: server type %s, test used %s", c.name, fromLiteral.info, c.info)
		}
		dest := c.dest()
		if err := compat.Unmarshal(c.info, fromLiteral.data, dest); err != nil {
			t.Errorf("%s: Unmarshal(%s, %x): %v", c.name, c.info, fromLiteral.data, err)
		} else if diff := cmp.Diff(c.want, resultOf(dest), cmpOptions...); diff != "" {
			t.Errorf("%s: decoded %s differs (-want +got):\n%s", c.name, c.literal, diff)
		}

		// The server accepts compat's encoding as a bound value. (gocql
		// v1.7.0 miscounts tuple bind markers, so tuples are written as
		// literals only.)
		if c.info.Type() == compat.TypeTuple {
			continue
		}
		if err := session.Query(fmt.Sprintf("INSERT INTO t (k, %s) VALUES (?, ?)", c.name), i, rawValue(encoded)).Exec(); err != nil {
			t.Errorf("%s: the server rejected compat's encoding %x of %#v: %v", c.name, encoded, c.value, err)
			continue
		}
		bound, err := read(c.name, i)
		if err != nil {
			t.Errorf("%s: reading back: %v", c.name, err)
			continue
		}
		dest = c.dest()
		if err := compat.Unmarshal(c.info, bound.data, dest); err != nil {
			t.Errorf("%s: Unmarshal(%s, %x): %v", c.name, c.info, bound.data, err)
		} else if diff := cmp.Diff(c.want, resultOf(dest), cmpOptions...); diff != "" {
			t.Errorf("%s: value read back differs (-want +got):\n%s", c.name, diff)
		}
	}
}
