package engine

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// testEngine wraps an engine with a fixed, adjustable clock.
type testEngine struct {
	*Engine
	t   *testing.T
	now time.Time
	ks  string
}

func newTestEngine(t *testing.T) *testEngine {
	t.Helper()
	return newTestEngineIn(t)
}

// newTestEngineIn is newTestEngine for a cluster of one node in each of the data centers dcs
// (one node in datacenter1 when there are none).
func newTestEngineIn(t *testing.T, dcs ...string) *testEngine {
	t.Helper()
	te := &testEngine{t: t, now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	var nodes []NodeInfo
	for i, dc := range dcs {
		nodes = append(nodes, NodeInfo{Addr: fmt.Sprintf("127.0.0.%d", i+1), DataCenter: dc})
	}
	e, err := New(Options{Nodes: nodes, Now: func() time.Time { return te.now }})
	if err != nil {
		t.Fatal(err)
	}
	te.Engine = e
	return te
}

func (te *testEngine) exec(q string, vals ...Value) (*Result, error) {
	return te.Execute(&Request{Consistency: 1, Keyspace: te.ks, Query: q, Values: Values{Positional: vals}})
}

func (te *testEngine) mustExec(q string, vals ...Value) *Result {
	te.t.Helper()
	r, err := te.exec(q, vals...)
	if err != nil {
		te.t.Fatalf("%s: %v", q, err)
	}
	if r.Kind == ResultSetKeyspace {
		te.ks = r.Keyspace
	}
	return r
}

// rows runs a query and renders its rows as "a|b|c" strings.
func (te *testEngine) rows(q string, vals ...Value) []string {
	te.t.Helper()
	r := te.mustExec(q, vals...)
	return render(r)
}

func render(r *Result) []string {
	out := []string{}
	for _, row := range r.Rows {
		parts := make([]string, len(row))
		for i, v := range row {
			parts[i] = formatValue(r.Columns[i].Type, v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

func colNames(r *Result) string {
	names := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ",")
}

func (te *testEngine) errCode(q string, vals ...Value) (ErrorCode, string) {
	te.t.Helper()
	_, err := te.exec(q, vals...)
	if err == nil {
		te.t.Fatalf("%s: expected an error", q)
	}
	var ce *Error
	if !errors.As(err, &ce) {
		te.t.Fatalf("%s: error %v is not *Error", q, err)
	}
	return ce.Code, ce.Message
}

func intVal(v int32) Value   { return Value{Bytes: binary.BigEndian.AppendUint32(nil, uint32(v))} }
func textVal(s string) Value { return Value{Bytes: []byte(s)} }

// formatValue renders an encoded value for test assertions, cqlsh style.
func formatValue(t datatype.DataType, b []byte) string {
	if b == nil {
		return "null"
	}
	if len(b) == 0 && t.Code() != primitive.DataTypeCodeVarchar && t.Code() != primitive.DataTypeCodeAscii && t.Code() != primitive.DataTypeCodeBlob {
		return "empty"
	}
	switch t.Code() {
	case primitive.DataTypeCodeInt, primitive.DataTypeCodeBigint, primitive.DataTypeCodeCounter, primitive.DataTypeCodeSmallint,
		primitive.DataTypeCodeTinyint:
		return fmt.Sprint(signedInt(b))
	case primitive.DataTypeCodeVarchar, primitive.DataTypeCodeAscii:
		return "'" + string(b) + "'"
	case primitive.DataTypeCodeBoolean:
		return fmt.Sprint(len(b) == 1 && b[0] != 0)
	case primitive.DataTypeCodeDouble:
		return fmt.Sprint(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case primitive.DataTypeCodeFloat:
		return fmt.Sprint(math.Float32frombits(binary.BigEndian.Uint32(b)))
	case primitive.DataTypeCodeUuid, primitive.DataTypeCodeTimeuuid:
		if len(b) == 16 {
			return formatUUID(b)
		}
	case primitive.DataTypeCodeInet:
		return net.IP(b).String()
	case primitive.DataTypeCodeTimestamp:
		return time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC().Format(time.RFC3339Nano)
	case primitive.DataTypeCodeVarint:
		return decodeVarint(b).String()
	case primitive.DataTypeCodeDecimal:
		return decimalRat(b).FloatString(int(int32(binary.BigEndian.Uint32(b))))
	case primitive.DataTypeCodeList, primitive.DataTypeCodeSet:
		var et datatype.DataType
		open, close := "[", "]"
		if l, ok := t.(*datatype.List); ok {
			et = l.ElementType
		} else {
			et = t.(*datatype.Set).ElementType
			open, close = "{", "}"
		}
		es, err := decodeElems(b)
		if err != nil {
			return "<bad " + err.Error() + ">"
		}
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = formatValue(et, e)
		}
		return open + strings.Join(parts, ", ") + close
	case primitive.DataTypeCodeMap:
		m := t.(*datatype.Map)
		ks, vs, err := decodeMap(b)
		if err != nil {
			return "<bad>"
		}
		parts := make([]string, len(ks))
		for i := range ks {
			parts[i] = formatValue(m.KeyType, ks[i]) + ": " + formatValue(m.ValueType, vs[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case primitive.DataTypeCodeTuple:
		tt := t.(*datatype.Tuple)
		fs, err := decodeFields(b, len(tt.FieldTypes))
		if err != nil {
			return "<bad>"
		}
		parts := make([]string, len(fs))
		for i := range fs {
			parts[i] = formatValue(tt.FieldTypes[i], fs[i])
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case primitive.DataTypeCodeUdt:
		u := t.(*datatype.UserDefined)
		fs, err := decodeFields(b, len(u.FieldTypes))
		if err != nil {
			return "<bad>"
		}
		parts := make([]string, len(fs))
		for i := range fs {
			parts[i] = u.FieldNames[i] + ": " + formatValue(u.FieldTypes[i], fs[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "0x" + hex.EncodeToString(b)
}

// decimalRat is the exact value of an encoded decimal, for rendering in tests.
func decimalRat(b []byte) *big.Rat {
	if len(b) < 4 {
		return new(big.Rat)
	}
	scale := int64(int32(binary.BigEndian.Uint32(b)))
	r := new(big.Rat).SetInt(decodeVarint(b[4:]))
	p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(max(scale, -scale)), nil))
	if scale > 0 {
		return r.Quo(r, p)
	}
	return r.Mul(r, p)
}

// wantInvalid runs each statement of want and checks that it fails as Invalid with the
// message want gives it.
func (te *testEngine) wantInvalid(want map[string]string) {
	te.t.Helper()
	for q, msg := range want {
		if code, got := te.errCode(q); code != CodeInvalid || got != msg {
			te.t.Errorf("%s: %v %q, want Invalid %q", q, code, got, msg)
		}
	}
}
