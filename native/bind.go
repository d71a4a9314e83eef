package native

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
	"github.com/cqlbridge/cqlbridge/native/internal/ring"
)

// encodedValues holds a statement's bound values encoded as protocol [value]s (each preceded
// by its [string] name when named), ready to be copied into a frame. It implements
// proto.ValueWriter.
type encodedValues struct {
	buf   []byte
	offs  []int32 // start of each [value] in buf (after the name when named)
	n     int
	named bool
	// meta is, in the values a Result keeps for its next page (see nextPageStatement), the
	// prepared statement's metadata they were encoded for; nil otherwise.
	meta *preparedMeta
}

func (e *encodedValues) reset() {
	e.buf, e.offs, e.n, e.named = e.buf[:0], e.offs[:0], 0, false
}

// WriteValues appends the encoded values to a frame being built.
func (e *encodedValues) WriteValues(dst []byte) ([]byte, int, error) {
	return append(dst, e.buf...), e.n, nil
}

// body returns the body of value i, nil for NULL, and false for unset.
func (e *encodedValues) body(i int) ([]byte, bool) {
	off := int(e.offs[i])
	l := int32(binary.BigEndian.Uint32(e.buf[off:]))
	switch {
	case l == -2:
		return nil, false
	case l < 0:
		return nil, true
	}
	return e.buf[off+4 : off+4+int(l)], true
}

// errUnsetV3 is the error of a value bound to Unset on a protocol v3 session.
var errUnsetV3 = fmt.Errorf("%w: Unset needs protocol v4 (the session speaks v3, where the server would read the value as NULL)", ErrUnsupported)

// refuseUnset returns a *BindError for the first value of e that is unset, nil when none is.
// m, when not nil, names the bind markers of a prepared statement.
func (e *encodedValues) refuseUnset(cql string, m *preparedMeta) error {
	for i, off := range e.offs {
		if int32(binary.BigEndian.Uint32(e.buf[off:])) != -2 {
			continue
		}
		err := &BindError{Statement: cql, Index: i, Err: errUnsetV3}
		if m != nil && i < len(m.params) {
			err.Name, err.Type = m.params[i].Name, m.params[i].Type
		}
		return err
	}
	return nil
}

// clone returns a copy that does not share memory with e, recording that its values were
// encoded for meta (nil for a simple statement).
func (e *encodedValues) clone(meta *preparedMeta) *encodedValues {
	return &encodedValues{buf: append([]byte(nil), e.buf...), offs: append([]int32(nil), e.offs...), n: e.n, named: e.named, meta: meta}
}

// checkEncodedFor refuses the values a next page carries (see nextPageStatement) when the
// prepared statement's metadata is no longer the one they were encoded for and takes other
// types (its table was dropped and created again, and another request prepared it again): sent
// with the new statement, they would be read with the new types.
func (e *encodedValues) checkEncodedFor(cql string, m *preparedMeta) error {
	if e.meta == nil || e.meta == m || sameBindTypes(e.meta.params, m.params) {
		return nil
	}
	return fmt.Errorf("%w: %q now takes %s, its first page was bound with %s: the next page is not fetched with values encoded for the old types; execute the statement again", ErrBindTypesChanged, abbreviate(cql), describeParams(m.params), describeParams(e.meta.params))
}

// bindPrepared encodes values for the bind markers of p into ev.
func bindPrepared(p *Prepared, m *preparedMeta, values []any, ev *encodedValues) error {
	named, err := allNamed(p.cql, values)
	if err != nil {
		return err
	}
	if named {
		return bindPreparedNamed(p, m, values, ev)
	}
	if len(values) != len(m.params) {
		return &BindError{Statement: p.cql, Index: -1, Err: fmt.Errorf("%w: %d values for %d bind markers", ErrArgCount, len(values), len(m.params))}
	}
	for i, v := range values {
		if err := ev.append(m.params[i].Type, v); err != nil {
			return &BindError{Statement: p.cql, Index: i, Name: m.params[i].Name, Type: m.params[i].Type, Err: err}
		}
	}
	return nil
}

// bindPreparedNamed binds each bind marker to the value of its name. A value binds every
// marker of its name (":x" used twice, or a column compared twice with "?"); two values of
// one name, a marker without a value and a value without a marker are errors.
func bindPreparedNamed(p *Prepared, m *preparedMeta, values []any, ev *encodedValues) error {
	for j, v := range values {
		name := v.(NamedValue).Name
		for _, w := range values[:j] {
			if w.(NamedValue).Name == name {
				return &BindError{Statement: p.cql, Index: -1, Name: name, Err: fmt.Errorf("%w: two values named %q (a value binds every marker of its name; bind markers apart with positional values)", ErrArgCount, name)}
			}
		}
	}
	var usedSmall [16]bool // the values a marker took, by index
	used := usedSmall[:]
	if len(values) > len(usedSmall) {
		used = make([]bool, len(values))
	}
	for i, prm := range m.params {
		j := findNamed(values, prm.Name, m.params)
		if j < 0 {
			msg := "no value given for this bind marker"
			if stray := strayNamed(m.params, values); stray != "" {
				// Most likely a misspelt name: say which.
				msg += fmt.Sprintf(" (no bind marker takes the value named %q)", stray)
			}
			return &BindError{Statement: p.cql, Index: i, Name: prm.Name, Type: prm.Type, Err: errors.New(msg)}
		}
		used[j] = true
		if err := ev.append(prm.Type, values[j].(NamedValue).Value); err != nil {
			return &BindError{Statement: p.cql, Index: i, Name: prm.Name, Type: prm.Type, Err: err}
		}
	}
	for j, v := range values {
		if !used[j] {
			// Its name matches no marker, or only in case where another value matches it
			// exactly ("C" and "c" for a marker c).
			name := v.(NamedValue).Name
			return &BindError{Statement: p.cql, Index: -1, Name: name, Err: fmt.Errorf("%w: no bind marker takes the value named %q", ErrArgCount, name)}
		}
	}
	return nil
}

// strayNamed returns the name of the first of values whose name no bind marker of params
// has, or "".
func strayNamed(params []Column, values []any) string {
	for _, v := range values {
		name := v.(NamedValue).Name
		if !slices.ContainsFunc(params, func(c Column) bool { return c.Name == name }) {
			return name
		}
	}
	return ""
}

// findNamed returns the index of the value that binds the marker called name: the one of that
// exact name, or else one whose name differs in case only and that no marker of params has
// exactly (with markers a and "A", a value named a binds a alone); -1 when none does.
func findNamed(values []any, name string, params []Column) int {
	for j, v := range values {
		if v.(NamedValue).Name == name {
			return j
		}
	}
	for j, v := range values {
		vn := v.(NamedValue).Name
		if strings.EqualFold(vn, name) && !hasColumnNamed(params, vn) {
			return j
		}
	}
	return -1
}

// allNamed reports whether the values are all NamedValue; mixing is an error.
func allNamed(cql string, values []any) (bool, error) {
	n := 0
	for _, v := range values {
		if _, ok := v.(NamedValue); ok {
			n++
		}
	}
	if n != 0 && n != len(values) {
		return false, &BindError{Statement: cql, Index: -1, Err: fmt.Errorf("%d of %d values are named: use all named or all positional values", n, len(values))}
	}
	return n > 0 && n == len(values), nil
}

// bindSimple encodes the values of a simple statement, inferring each CQL type from the Go
// type (see inferType).
func bindSimple(cql string, values []any, ev *encodedValues) error {
	named, err := allNamed(cql, values)
	if err != nil {
		return err
	}
	ev.named = named
	for i, v := range values {
		name := ""
		if named {
			nv := v.(NamedValue)
			name, v = nv.Name, nv.Value
			if len(name) > math.MaxUint16 {
				return &BindError{Statement: cql, Index: i, Name: name, Err: fmt.Errorf("a value name of %d bytes: the protocol allows at most 65535", len(name))}
			}
			ev.buf = binary.BigEndian.AppendUint16(ev.buf, uint16(len(name)))
			ev.buf = append(ev.buf, name...)
		}
		t, err := inferType(v)
		if err != nil {
			return &BindError{Statement: cql, Index: i, Name: name, Err: err}
		}
		if err := ev.append(t, v); err != nil {
			return &BindError{Statement: cql, Index: i, Name: name, Type: t, Err: err}
		}
	}
	return nil
}

// maxEncodedValues is the most bytes a statement's encoded values may take together: offs
// holds int32 offsets into them (and no frame carries more).
const maxEncodedValues = math.MaxInt32

// append encodes one value.
func (e *encodedValues) append(t *cqltype.Type, v any) error {
	return e.appendUpTo(t, v, maxEncodedValues)
}

// appendUpTo encodes one value, refusing it when the values would then take more than limit
// bytes.
func (e *encodedValues) appendUpTo(t *cqltype.Type, v any, limit int) error {
	e.offs = append(e.offs, int32(len(e.buf)))
	out, err := cqltype.Append(e.buf, t, v)
	if err == nil && len(out) > limit {
		err = fmt.Errorf("%w: the values bound up to this one take %d bytes, over the %d a request can carry", cqltype.ErrInvalidValue, len(out), limit)
	}
	if err != nil {
		e.offs = e.offs[:len(e.offs)-1]
		return err
	}
	e.buf = out
	e.n++
	return nil
}

// token computes the partition token from the values bound to the partition key markers;
// ok is false when a key value is missing, NULL or unset.
func (e *encodedValues) token(pk []int, scratch *[]byte) (int64, bool) {
	if len(pk) == 0 || e.named {
		return 0, false
	}
	if len(pk) == 1 {
		if pk[0] >= e.n {
			return 0, false
		}
		b, ok := e.body(pk[0])
		if !ok || b == nil {
			return 0, false
		}
		return ring.Token(b), true
	}
	rk := (*scratch)[:0]
	for _, i := range pk {
		if i >= e.n {
			return 0, false
		}
		b, ok := e.body(i)
		if !ok || b == nil || len(b) > 0xFFFF {
			return 0, false
		}
		rk = binary.BigEndian.AppendUint16(rk, uint16(len(b)))
		rk = append(rk, b...)
		rk = append(rk, 0)
	}
	*scratch = rk
	return ring.Token(rk), true
}

// Types inferred for the values of simple statements. They are never modified.
var (
	typeBigint    = cqltype.New(cqltype.KindBigint)
	typeInt       = cqltype.New(cqltype.KindInt)
	typeSmallint  = cqltype.New(cqltype.KindSmallint)
	typeTinyint   = cqltype.New(cqltype.KindTinyint)
	typeText      = cqltype.New(cqltype.KindVarchar)
	typeBlob      = cqltype.New(cqltype.KindBlob)
	typeBoolean   = cqltype.New(cqltype.KindBoolean)
	typeFloat     = cqltype.New(cqltype.KindFloat)
	typeDouble    = cqltype.New(cqltype.KindDouble)
	typeTimestamp = cqltype.New(cqltype.KindTimestamp)
	typeUUID      = cqltype.New(cqltype.KindUUID)
	typeInet      = cqltype.New(cqltype.KindInet)
	typeVarint    = cqltype.New(cqltype.KindVarint)
	typeDecimal   = cqltype.New(cqltype.KindDecimal)
	typeDate      = cqltype.New(cqltype.KindDate)
	typeDuration  = cqltype.New(cqltype.KindDuration)
)

// errCannotInfer is wrapped when a simple statement's value has a Go type with no obvious
// CQL type.
var errCannotInfer = errors.New("cannot infer the CQL type of this Go type for a simple statement; prepare the statement so the server gives the types")

// inferType picks the CQL type a simple statement's value is sent as: int, int64 and uint32
// as bigint, int32 as int, int16 as smallint, int8 as tinyint, string as text, []byte as
// blob, bool, float32 as float, float64 as double, time.Time as timestamp, cqltype.UUID as
// uuid, netip.Addr and net.IP as inet, *big.Int as varint, cqltype.Decimal as decimal,
// cqltype.Date as date, cqltype.Duration as duration, a pointer as what it points to (a nil
// one is NULL), and slices and arrays of those as list<...>, maps as map<...> (with struct{}
// values, set<...>), named or not. nil and Unset need no type. Other types (named scalar
// ones, time.Duration, which could be a time, a duration or a bigint, and []float32, which
// could be a vector of unknown dimension) are refused (see Query).
func inferType(v any) (*cqltype.Type, error) {
	switch v.(type) {
	case nil, cqltype.UnsetValue:
		return typeBlob, nil
	}
	if t := knownType(v); t != nil {
		return t, nil
	}
	if t := inferGoType(reflect.TypeOf(v), nil); t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("%T: %w", v, errCannotInfer)
}

// knownType returns the CQL type of a value of one of the Go types inferType knows by name
// (its fast path), or nil.
func knownType(v any) *cqltype.Type {
	switch v.(type) {
	case int, int64, uint32:
		return typeBigint
	case int32:
		return typeInt
	case int16:
		return typeSmallint
	case int8:
		return typeTinyint
	case string:
		return typeText
	case []byte:
		return typeBlob
	case bool:
		return typeBoolean
	case float32:
		return typeFloat
	case float64:
		return typeDouble
	case time.Time:
		return typeTimestamp
	case cqltype.UUID:
		return typeUUID
	case netip.Addr, net.IP:
		return typeInet
	case *big.Int:
		return typeVarint
	case cqltype.Decimal:
		return typeDecimal
	case cqltype.Date:
		return typeDate
	case cqltype.Duration:
		return typeDuration
	case []string:
		return cqltype.NewList(typeText)
	case []int:
		return cqltype.NewList(typeBigint)
	case []int64:
		return cqltype.NewList(typeBigint)
	case []int32:
		return cqltype.NewList(typeInt)
	case []float64:
		return cqltype.NewList(typeDouble)
	case map[string]string:
		return cqltype.NewMap(typeText, typeText)
	case map[string]int:
		return cqltype.NewMap(typeText, typeBigint)
	}
	return nil
}

// inferGoType is inferType's slow path, by Go type: the types knownType knows (given their
// zero value), pointers to what they point to, slices and arrays as lists, maps as maps (sets for struct{} values);
// nil when rt has no CQL type a simple statement can send. outer holds the types rt is part
// of: a recursive type (type T []T, type T map[string]T, type T *T) has none, and is not
// followed into itself for ever.
func inferGoType(rt reflect.Type, outer []reflect.Type) *cqltype.Type {
	if rt == nil {
		return nil
	}
	if t := knownType(reflect.Zero(rt).Interface()); t != nil {
		return t
	}
	if slices.Contains(outer, rt) {
		return nil
	}
	outer = append(outer, rt)
	switch rt.Kind() {
	case reflect.Pointer:
		return inferGoType(rt.Elem(), outer)
	case reflect.Slice, reflect.Array:
		if rt.Elem() == reflect.TypeFor[float32]() {
			return nil // a vector's Go type: its dimension is unknown here
		}
		if et := inferGoType(rt.Elem(), outer); et != nil {
			return cqltype.NewList(et)
		}
	case reflect.Map:
		kt := inferGoType(rt.Key(), outer)
		if kt == nil {
			return nil
		}
		if rt.Elem() == reflect.TypeFor[struct{}]() {
			return cqltype.NewSet(kt)
		}
		if vt := inferGoType(rt.Elem(), outer); vt != nil {
			return cqltype.NewMap(kt, vt)
		}
	}
	return nil
}
