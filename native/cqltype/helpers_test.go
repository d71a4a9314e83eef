package cqltype

import (
	"encoding/binary"
	"math/big"
	"net/netip"
	"reflect"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gopkg.in/inf.v0"
)

// wideInt is an int beyond 32 bits where int has 64 (2^40), and 2^30 where it has 32, so the
// tests compile and run on both.
const wideInt = 1 << min(40, strconv.IntSize-2)

// Short names for the native types used across the tests.
var (
	tASCII     = New(KindASCII)
	tBigint    = New(KindBigint)
	tBlob      = New(KindBlob)
	tBoolean   = New(KindBoolean)
	tCounter   = New(KindCounter)
	tDecimal   = New(KindDecimal)
	tDouble    = New(KindDouble)
	tFloat     = New(KindFloat)
	tInt       = New(KindInt)
	tTimestamp = New(KindTimestamp)
	tUUID      = New(KindUUID)
	tText      = New(KindVarchar)
	tVarint    = New(KindVarint)
	tTimeUUID  = New(KindTimeUUID)
	tInet      = New(KindInet)
	tDate      = New(KindDate)
	tTime      = New(KindTime)
	tSmallint  = New(KindSmallint)
	tTinyint   = New(KindTinyint)
	tDuration  = New(KindDuration)
)

// cmpOpts compares decoded values by meaning where pointers or NaN would get in
// the way.
var cmpOpts = cmp.Options{
	cmpopts.EquateNaNs(),
	cmpopts.EquateComparable(netip.Addr{}),
	cmp.Comparer(func(a, b *big.Int) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Cmp(b) == 0
	}),
	cmp.Comparer(func(a, b big.Int) bool { return a.Cmp(&b) == 0 }),
	cmp.Comparer(func(a, b Decimal) bool {
		return a.Scale == b.Scale && a.unscaled().Cmp(b.unscaled()) == 0
	}),
	cmp.Comparer(func(a, b *inf.Dec) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Scale() == b.Scale() && a.UnscaledBig().Cmp(b.UnscaledBig()) == 0
	}),
}

// splitValue checks that buf is exactly one [value] and returns its body (nil
// for NULL) and the raw length.
func splitValue(t *testing.T, buf []byte) ([]byte, int32) {
	t.Helper()
	if len(buf) < 4 {
		t.Fatalf("value of %d bytes has no length", len(buf))
	}
	n := int32(binary.BigEndian.Uint32(buf))
	if n < 0 {
		if len(buf) != 4 {
			t.Fatalf("NULL/unset value followed by %d bytes", len(buf)-4)
		}
		return nil, n
	}
	if int(n) != len(buf)-4 {
		t.Fatalf("length prefix %d, body %d bytes", n, len(buf)-4)
	}
	return buf[4:], n
}

// encodeBody encodes v with Append and returns the body (nil for NULL).
func encodeBody(t *testing.T, typ *Type, v any) []byte {
	t.Helper()
	buf, err := Append(nil, typ, v)
	if err != nil {
		t.Fatalf("Append(%s, %T %v): %v", typ, v, v, err)
	}
	body, _ := splitValue(t, buf)
	return body
}

// decodeAs decodes body into a new value of like's type and returns it.
func decodeAs(t *testing.T, typ *Type, body []byte, like any) any {
	t.Helper()
	p := reflect.New(reflect.TypeOf(like))
	if err := Decode(typ, body, p.Interface()); err != nil {
		t.Fatalf("Decode(%s, %x, *%T): %v", typ, body, like, err)
	}
	return p.Elem().Interface()
}

func ptr[T any](v T) *T { return &v }

func mustBig(s string) *big.Int {
	x, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic("bad big int " + s)
	}
	return x
}
