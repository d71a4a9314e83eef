package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// evalCtx carries what evaluating terms needs: the bind values and their metadata.
type evalCtx struct {
	values Values
	vars   []Column
	now    time.Time
	e      *Engine
}

// errUnset is returned (as a sentinel flag) when a term is an unset bind value.
type termResult struct {
	b     []byte
	unset bool
}

func termKindName(k cql.TermKind) string {
	switch k {
	case cql.TermString:
		return "STRING"
	case cql.TermInteger:
		return "INTEGER"
	case cql.TermFloat:
		return "FLOAT"
	case cql.TermBool:
		return "BOOLEAN"
	case cql.TermUUID:
		return "UUID"
	case cql.TermHex:
		return "HEX"
	case cql.TermDuration:
		return "DURATION"
	}
	return "constant"
}

func badConst(t *cql.Term, ty *ctype, name string) *Error {
	return invalid("Invalid %s constant (%s) for \"%s\" of type %s", termKindName(t.Kind), t.Text, name, ty.plainString())
}

// bindValue fetches the value of a bind marker.
func (c *evalCtx) bindValue(t *cql.Term, ty *ctype) (termResult, error) {
	var v Value
	if c.values.Named != nil {
		name := t.BindName
		if name == "" && t.BindIdx < len(c.vars) {
			name = c.vars[t.BindIdx].Name
		}
		var ok bool
		v, ok = c.values.Named[name]
		if !ok {
			return termResult{}, invalid("Invalid unset value for column %s", name)
		}
	} else {
		if t.BindIdx >= len(c.values.Positional) {
			return termResult{}, invalid("There were %d markers(?) in CQL but %d bound variables", len(c.vars), len(c.values.Positional))
		}
		v = c.values.Positional[t.BindIdx]
	}
	if v.Unset {
		return termResult{unset: true}, nil
	}
	if v.Bytes == nil {
		return termResult{}, nil
	}
	if err := validateValue(ty, v.Bytes); err != nil {
		return termResult{}, err
	}
	return termResult{b: v.Bytes}, nil
}

// evalTerm converts a term to the encoded value of type ty; name is the receiver's name for
// error messages.
func (c *evalCtx) evalTerm(t *cql.Term, ty *ctype, name string) (termResult, error) {
	switch t.Kind {
	case cql.TermBind:
		return c.bindValue(t, ty)
	case cql.TermNull:
		return termResult{}, nil
	case cql.TermCast:
		return c.evalTerm(t.Elems[0], ty, name)
	case cql.TermFunc:
		if t.Text == "fromjson" {
			return c.fromJSONTerm(t, ty, name)
		}
		b, err := c.evalFunc(t, ty, name)
		return termResult{b: b}, err
	}
	b, err := c.literal(t, ty, name)
	return termResult{b: b}, err
}

func (c *evalCtx) evalFunc(t *cql.Term, ty *ctype, name string) ([]byte, error) {
	v, err := c.evalFuncTerm(t, name)
	if err != nil {
		return nil, err
	}
	if !assignable(v.typ, ty) {
		return nil, invalid("Type error: cannot assign result of function system.%s (type %s) to %s (type %s)", t.Text, v.typ.plainString(), name, ty.plainString())
	}
	return v.b, nil
}

func parseInteger(t *cql.Term, ty *ctype, name string, bitsz int) (int64, error) {
	if t.Kind != cql.TermInteger {
		return 0, badConst(t, ty, name)
	}
	v, err := strconv.ParseInt(t.Text, 10, bitsz)
	if err != nil {
		return 0, invalid("Unable to make %s from '%s'", ty.plainString(), t.Text)
	}
	return v, nil
}

// literal converts a literal term (not a marker) to ty's encoding.
func (c *evalCtx) literal(t *cql.Term, ty *ctype, name string) ([]byte, error) {
	switch ty.code {
	case primitive.DataTypeCodeList, primitive.DataTypeCodeSet, primitive.DataTypeCodeMap:
		return c.collectionLiteral(t, ty, name)
	case primitive.DataTypeCodeTuple:
		switch t.Kind {
		case cql.TermTuple:
		case cql.TermString, cql.TermInteger, cql.TermFloat, cql.TermBool, cql.TermUUID, cql.TermDuration:
			return tupleFromString(ty, t.Text)
		case cql.TermHex:
			// the bytes of a serialized tuple, as on Cassandra
			b, err := c.literal(t, tBlob, name)
			if err != nil {
				return nil, err
			}
			return b, validateValue(ty, b)
		case cql.TermList, cql.TermSet, cql.TermMap, cql.TermEmptyMap:
			return nil, literalMismatch(t, name, ty)
		default:
			return nil, invalid("Invalid tuple literal for %s of type %s", name, ty.plainString())
		}
		fields := make([][]byte, len(ty.elems))
		for i, e := range t.Elems {
			if i >= len(ty.elems) {
				break
			}
			r, err := c.evalTerm(e, ty.elems[i], name)
			if err != nil {
				return nil, elemError(err, "Invalid tuple literal for %s: component %d is not of type %s", name, i, ty.elems[i].plainString())
			}
			if r.unset {
				return nil, invalid("Invalid unset value for tuple field number %d", i)
			}
			fields[i] = r.b
		}
		if len(t.Elems) > len(ty.elems) {
			return nil, invalid("Invalid tuple literal for %s: too many elements. Type %s expects %d but got %d", name, ty.String(), len(ty.elems), len(t.Elems))
		}
		return encodeFields(fields), nil
	case primitive.DataTypeCodeUdt:
		if t.Kind == cql.TermEmptyMap {
			// Cassandra reads {} as an empty set literal, which no user type accepts
			return nil, invalid("Invalid set literal for %s of type %s", name, udtName(ty))
		}
		if t.Kind == cql.TermList {
			return nil, literalMismatch(t, name, ty)
		}
		if t.Kind != cql.TermMap || t.Fields == nil {
			return nil, invalid("Invalid user type literal for %s of type %s", name, ty.plainString())
		}
		fields := make([][]byte, len(ty.elems))
		for i, f := range t.Fields {
			idx := -1
			for j, fn := range ty.fields {
				if fn == f {
					idx = j
				}
			}
			if idx < 0 {
				return nil, invalid("Unknown field '%s' in value of user defined type %s", f, ty.name)
			}
			r, err := c.evalTerm(t.Values[i], ty.elems[idx], name+"."+f)
			if err != nil {
				return nil, elemError(err, "Invalid user type literal for %s: field %s is not of type %s", name, f, ty.elems[idx].plainString())
			}
			if r.unset {
				return nil, invalid("Invalid unset value for field '%s' of user defined type %s", f, ty.name)
			}
			fields[idx] = r.b
		}
		return encodeFields(fields), nil
	case kindVector:
		if t.Kind != cql.TermList {
			return nil, invalid("Invalid vector literal for %s of type %s", name, ty.plainString())
		}
		if len(t.Elems) != ty.dim {
			return nil, invalid("Invalid vector literal for %s of type %s; expected %d elements, but given %d", name, ty.plainString(), ty.dim, len(t.Elems))
		}
		var out []byte
		for _, e := range t.Elems {
			r, err := c.evalTerm(e, ty.elem, name)
			if err != nil {
				return nil, elemError(err, "Invalid vector literal for %s: value %s is not of type %s", name, termCQL(e), ty.elem.plainString())
			}
			if r.b == nil {
				return nil, invalid("null is not supported inside vectors")
			}
			if ty.elem.fixedSize() == 0 {
				out = appendUvint(out, uint64(len(r.b)))
			}
			out = append(out, r.b...)
		}
		return out, nil
	}
	if t.Kind == cql.TermList || t.Kind == cql.TermSet || t.Kind == cql.TermMap || t.Kind == cql.TermEmptyMap || t.Kind == cql.TermTuple {
		return nil, literalMismatch(t, name, ty)
	}
	switch ty.code {
	case primitive.DataTypeCodeInt:
		v, err := parseInteger(t, ty, name, 32)
		return binary.BigEndian.AppendUint32(nil, uint32(v)), err
	case primitive.DataTypeCodeBigint, primitive.DataTypeCodeCounter:
		v, err := parseInteger(t, ty, name, 64)
		return binary.BigEndian.AppendUint64(nil, uint64(v)), err
	case primitive.DataTypeCodeSmallint:
		v, err := parseInteger(t, ty, name, 16)
		return binary.BigEndian.AppendUint16(nil, uint16(v)), err
	case primitive.DataTypeCodeTinyint:
		v, err := parseInteger(t, ty, name, 8)
		return []byte{byte(v)}, err
	case primitive.DataTypeCodeVarint:
		if t.Kind != cql.TermInteger {
			return nil, badConst(t, ty, name)
		}
		n, ok := new(big.Int).SetString(t.Text, 10)
		if !ok {
			return nil, invalid("Unable to make varint from '%s'", t.Text)
		}
		return encodeVarint(n), nil
	case primitive.DataTypeCodeFloat, primitive.DataTypeCodeDouble:
		if t.Kind != cql.TermInteger && t.Kind != cql.TermFloat {
			return nil, badConst(t, ty, name)
		}
		f, err := strconv.ParseFloat(t.Text, 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			return nil, invalid("Unable to make %s from '%s'", ty.plainString(), t.Text)
		}
		// NaN is encoded canonically, as Java's Float/Double.NaN
		if ty.code == primitive.DataTypeCodeFloat {
			if math.IsNaN(f) {
				return []byte{0x7f, 0xc0, 0, 0}, nil
			}
			return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(f))), nil
		}
		if math.IsNaN(f) {
			return []byte{0x7f, 0xf8, 0, 0, 0, 0, 0, 0}, nil
		}
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(f)), nil
	case primitive.DataTypeCodeDecimal:
		if t.Kind != cql.TermInteger && t.Kind != cql.TermFloat {
			return nil, badConst(t, ty, name)
		}
		b, err := parseDecimal(t.Text)
		if err != nil {
			return nil, invalid("Unable to make decimal from '%s'", t.Text)
		}
		return b, nil
	case primitive.DataTypeCodeVarchar, primitive.DataTypeCodeAscii:
		if t.Kind != cql.TermString {
			return nil, badConst(t, ty, name)
		}
		if ty.code == primitive.DataTypeCodeAscii {
			for i := 0; i < len(t.Text); i++ {
				if t.Text[i] > 127 {
					return nil, invalid("Invalid ASCII character in string literal")
				}
			}
		}
		return []byte(t.Text), nil
	case primitive.DataTypeCodeBoolean:
		if t.Kind != cql.TermBool {
			return nil, badConst(t, ty, name)
		}
		if t.Text == "true" {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	case primitive.DataTypeCodeBlob:
		if t.Kind != cql.TermHex {
			return nil, badConst(t, ty, name)
		}
		h := t.Text[2:]
		if len(h)%2 == 1 {
			h = "0" + h
		}
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, invalid("cannot parse '%s' as hex bytes", t.Text)
		}
		return b, nil
	case primitive.DataTypeCodeUuid, primitive.DataTypeCodeTimeuuid:
		if t.Kind != cql.TermUUID {
			// Cassandra 5.0 takes no string for a uuid
			return nil, badConst(t, ty, name)
		}
		b, err := parseUUID(t.Text)
		if err != nil {
			return nil, invalid("Unable to make UUID from '%s'", t.Text)
		}
		return b, checkTimeUUID(ty, b)
	case primitive.DataTypeCodeTimestamp:
		switch t.Kind {
		case cql.TermInteger:
			v, err := parseInteger(t, tBigint, name, 64)
			return binary.BigEndian.AppendUint64(nil, uint64(v)), err
		case cql.TermString:
			ms, err := parseTimestamp(t.Text)
			if err != nil {
				return nil, err
			}
			return binary.BigEndian.AppendUint64(nil, uint64(ms)), nil
		}
		return nil, badConst(t, ty, name)
	case primitive.DataTypeCodeDate:
		if t.Kind == cql.TermInteger || t.Kind == cql.TermString {
			return dateLiteral(t.Text)
		}
		return nil, badConst(t, ty, name)
	case primitive.DataTypeCodeTime:
		if t.Kind == cql.TermInteger || t.Kind == cql.TermString {
			ns, err := timeLiteral(t.Text)
			return binary.BigEndian.AppendUint64(nil, uint64(ns)), err
		}
		return nil, badConst(t, ty, name)
	case primitive.DataTypeCodeInet:
		if t.Kind != cql.TermString {
			return nil, badConst(t, ty, name)
		}
		ip := net.ParseIP(t.Text)
		if ip == nil {
			return nil, invalid("Unable to make inet address from '%s'", t.Text)
		}
		if v4 := ip.To4(); v4 != nil && !strings.Contains(t.Text, ":") {
			return []byte(v4), nil
		}
		return []byte(ip.To16()), nil
	case primitive.DataTypeCodeDuration:
		if t.Kind == cql.TermInteger || t.Kind == cql.TermFloat {
			return nil, invalid("Unable to convert '%s' to a duration", t.Text)
		}
		if t.Kind != cql.TermDuration {
			return nil, badConst(t, ty, name)
		}
		m, d, n, err := parseDuration(t.Text)
		if err != nil {
			return nil, invalid("Unable to convert '%s' to a duration", t.Text)
		}
		return encodeDuration(m, d, n), nil
	}
	return nil, invalid("cqlsim: literals of type %s are not supported", ty.plainString())
}

func checkTimeUUID(ty *ctype, b []byte) error {
	if ty.code == primitive.DataTypeCodeTimeuuid && b[6]>>4 != 1 {
		return invalid("TimeUUID supports only version 1 UUIDs")
	}
	return nil
}

func (c *evalCtx) collectionLiteral(t *cql.Term, ty *ctype, name string) ([]byte, error) {
	kindName := map[primitive.DataTypeCode]string{primitive.DataTypeCodeList: "list", primitive.DataTypeCodeSet: "set", primitive.DataTypeCodeMap: "map"}[ty.code]
	switch {
	case t.Kind == cql.TermEmptyMap && ty.code != primitive.DataTypeCodeList:
		if ty.code == primitive.DataTypeCodeMap {
			return encodeMap(nil, nil), nil
		}
		return encodeElems(nil), nil
	case ty.code == primitive.DataTypeCodeList && t.Kind == cql.TermList,
		ty.code == primitive.DataTypeCodeSet && t.Kind == cql.TermSet:
		elems := make([][]byte, 0, len(t.Elems))
		for _, e := range t.Elems {
			r, err := c.evalTerm(e, ty.elem, name)
			if err != nil {
				return nil, elemError(err, "Invalid %s literal for %s: value %s is not of type %s", kindName, name, termCQL(e), ty.elem.plainString())
			}
			if r.unset {
				return nil, invalid("Invalid unset value in %s literal for %s", kindName, name)
			}
			if r.b == nil {
				return nil, invalid("null is not supported inside collections")
			}
			elems = append(elems, r.b)
		}
		if ty.code == primitive.DataTypeCodeSet {
			elems = sortDedup(ty.elem, elems)
		}
		return encodeElems(elems), nil
	case ty.code == primitive.DataTypeCodeMap && t.Kind == cql.TermMap && t.Fields == nil:
		keys := make([][]byte, 0, len(t.Elems))
		vals := make([][]byte, 0, len(t.Elems))
		for i := range t.Elems {
			k, err := c.evalTerm(t.Elems[i], ty.key, name)
			if err != nil {
				return nil, elemError(err, "Invalid map literal for %s: key %s is not of type %s", name, termCQL(t.Elems[i]), ty.key.plainString())
			}
			v, err := c.evalTerm(t.Values[i], ty.val, name)
			if err != nil {
				return nil, elemError(err, "Invalid map literal for %s: value %s is not of type %s", name, termCQL(t.Values[i]), ty.val.plainString())
			}
			if k.b == nil || v.b == nil {
				return nil, invalid("null is not supported inside collections")
			}
			keys = append(keys, k.b)
			vals = append(vals, v.b)
		}
		keys, vals = sortMap(ty.key, keys, vals)
		return encodeMap(keys, vals), nil
	}
	return nil, literalMismatch(t, name, ty)
}

// literalMismatch is Cassandra 5.0's refusal of a collection or tuple literal t for a
// receiver of another type ty.
func literalMismatch(t *cql.Term, name string, ty *ctype) error {
	switch t.Kind {
	case cql.TermList:
		return invalid("Unexpected receiver type '%s'; only list and vector are expected", ty.String())
	case cql.TermTuple:
		return invalid("Invalid tuple type literal for %s of type %s", name, ty.String())
	}
	return invalid("Invalid %s literal for %s of type %s", literalKind(t), name, ty.String())
}

func literalKind(t *cql.Term) string {
	switch t.Kind {
	case cql.TermList:
		return "list"
	case cql.TermSet, cql.TermEmptyMap:
		return "set"
	case cql.TermMap:
		return "map"
	case cql.TermTuple:
		return "tuple"
	}
	return strings.ToLower(termKindName(t.Kind))
}

// sortDedup sorts set elements by the element comparator and removes duplicates.
func sortDedup(et *ctype, elems [][]byte) [][]byte {
	sortBytes(elems, func(a, b []byte) int { return compareValues(et, a, b) })
	out := elems[:0]
	for i, e := range elems {
		if i > 0 && compareValues(et, out[len(out)-1], e) == 0 {
			continue
		}
		out = append(out, e)
	}
	return out
}

// sortMap sorts map entries by key; later duplicates win.
func sortMap(kt *ctype, keys, vals [][]byte) ([][]byte, [][]byte) {
	type kv struct{ k, v []byte }
	entries := make([]kv, 0, len(keys))
	for i := range keys {
		replaced := false
		for j := range entries {
			if compareValues(kt, entries[j].k, keys[i]) == 0 {
				entries[j].v = vals[i]
				replaced = true
			}
		}
		if !replaced {
			entries = append(entries, kv{keys[i], vals[i]})
		}
	}
	idx := make([][]byte, len(entries))
	for i := range entries {
		idx[i] = entries[i].k
	}
	for i := 1; i < len(entries); i++ {
		for j := i; j > 0 && compareValues(kt, entries[j-1].k, entries[j].k) > 0; j-- {
			entries[j-1], entries[j] = entries[j], entries[j-1]
		}
	}
	ko := make([][]byte, len(entries))
	vo := make([][]byte, len(entries))
	for i, e := range entries {
		ko[i], vo[i] = e.k, e.v
	}
	return ko, vo
}

func sortBytes(s [][]byte, cmp func(a, b []byte) int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && cmp(s[j-1], s[j]) > 0; j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
}

func encodeVarint(n *big.Int) []byte {
	if n.Sign() == 0 {
		return []byte{0}
	}
	if n.Sign() > 0 {
		b := n.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// two's complement of a negative number
	l := len(n.Bytes()) + 1
	mod := new(big.Int).Lsh(big.NewInt(1), uint(l*8))
	v := new(big.Int).Add(mod, n).Bytes()
	for len(v) > 1 && v[0] == 0xFF && v[1]&0x80 != 0 {
		v = v[1:]
	}
	return v
}

func decodeVarint(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b)*8)))
	}
	return n
}

func parseDecimal(s string) ([]byte, error) {
	mant := s
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return nil, err
		}
		exp = e
		mant = s[:i]
	}
	scale := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		scale = len(mant) - i - 1
		mant = mant[:i] + mant[i+1:]
	}
	n, ok := new(big.Int).SetString(mant, 10)
	if !ok {
		return nil, fmt.Errorf("bad decimal %q", s)
	}
	scale -= exp
	if scale < math.MinInt32 || scale > math.MaxInt32 {
		// Java's BigDecimal refuses such an exponent too; wrapping it would change the value.
		return nil, fmt.Errorf("decimal %q: scale %d does not fit in 32 bits", s, scale)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(int32(scale)))
	return append(out, encodeVarint(n)...), nil
}

func parseUUID(s string) ([]byte, error) {
	if len(s) != 36 {
		return nil, fmt.Errorf("bad uuid %q", s)
	}
	h := strings.ReplaceAll(s, "-", "")
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 16 {
		return nil, fmt.Errorf("bad uuid %q", s)
	}
	return b, nil
}

func formatUUID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// parseDuration parses "1h30m"-style, ISO-8601 "P1DT2H" and "P2W" durations.
func parseDuration(s string) (months, days int32, nanos int64, err error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var m, d, n int64
	if s != "" && (s[0] == 'P' || s[0] == 'p') {
		body := strings.ToUpper(s[1:])
		inTime := false
		num := ""
		for i := 0; i < len(body); i++ {
			c := body[i]
			if c >= '0' && c <= '9' {
				num += string(c)
				continue
			}
			if c == 'T' {
				inTime = true
				continue
			}
			v, perr := strconv.ParseInt(num, 10, 64)
			if perr != nil {
				return 0, 0, 0, perr
			}
			num = ""
			switch {
			case c == 'Y':
				m += v * 12
			case c == 'M' && !inTime:
				m += v
			case c == 'W':
				d += v * 7
			case c == 'D':
				d += v
			case c == 'H':
				n += v * int64(time.Hour)
			case c == 'M':
				n += v * int64(time.Minute)
			case c == 'S':
				n += v * int64(time.Second)
			default:
				return 0, 0, 0, fmt.Errorf("bad duration %q", s)
			}
		}
	} else {
		rest := strings.ToLower(s)
		for rest != "" {
			i := 0
			for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
				i++
			}
			if i == 0 {
				return 0, 0, 0, fmt.Errorf("bad duration %q", s)
			}
			v, perr := strconv.ParseInt(rest[:i], 10, 64)
			if perr != nil {
				return 0, 0, 0, perr
			}
			rest = rest[i:]
			unit := ""
			for _, u := range []string{"mo", "ms", "us", "µs", "ns", "y", "w", "d", "h", "m", "s"} {
				if strings.HasPrefix(rest, u) {
					unit = u
					break
				}
			}
			if unit == "" {
				return 0, 0, 0, fmt.Errorf("bad duration %q", s)
			}
			rest = rest[len(unit):]
			switch unit {
			case "y":
				m += v * 12
			case "mo":
				m += v
			case "w":
				d += v * 7
			case "d":
				d += v
			case "h":
				n += v * int64(time.Hour)
			case "m":
				n += v * int64(time.Minute)
			case "s":
				n += v * int64(time.Second)
			case "ms":
				n += v * int64(time.Millisecond)
			case "us", "µs":
				n += v * int64(time.Microsecond)
			case "ns":
				n += v
			}
		}
	}
	if neg {
		m, d, n = -m, -d, -n
	}
	return int32(m), int32(d), n, nil
}

// validateValue checks that b is a valid encoding of ty (b is non-nil).
func validateValue(ty *ctype, b []byte) error {
	n := len(b)
	switch ty.code {
	case primitive.DataTypeCodeInt:
		if n != 4 && n != 0 {
			return invalid("Expected 4 or 0 byte int (%d)", n)
		}
	case primitive.DataTypeCodeBigint, primitive.DataTypeCodeCounter:
		if n != 8 && n != 0 {
			return invalid("Expected 8 or 0 byte long (%d)", n)
		}
	case primitive.DataTypeCodeTimestamp:
		if n != 8 && n != 0 {
			return invalid("Expected 8 or 0 byte long for date (%d)", n)
		}
	case primitive.DataTypeCodeSmallint:
		if n != 2 && n != 0 {
			return invalid("Expected 2 bytes for a smallint (%d)", n)
		}
	case primitive.DataTypeCodeTinyint:
		if n != 1 && n != 0 {
			return invalid("Expected 1 byte for a tinyint (%d)", n)
		}
	case primitive.DataTypeCodeFloat:
		if n != 4 && n != 0 {
			return invalid("Expected 4 or 0 byte value for a float (%d)", n)
		}
	case primitive.DataTypeCodeDouble:
		if n != 8 && n != 0 {
			return invalid("Expected 8 or 0 byte value for a double (%d)", n)
		}
	case primitive.DataTypeCodeBoolean:
		if n != 1 && n != 0 {
			return invalid("Expected 1 or 0 byte value (%d)", n)
		}
	case primitive.DataTypeCodeUuid, primitive.DataTypeCodeTimeuuid:
		if n != 16 && n != 0 {
			return invalid("UUID should be 16 or 0 bytes (%d)", n)
		}
		if ty.code == primitive.DataTypeCodeTimeuuid && n == 16 && b[6]>>4 != 1 {
			return invalid("Invalid version for TimeUUID type.")
		}
	case primitive.DataTypeCodeDate:
		// Unlike most types, date and time have no empty value; and a time is any eight
		// bytes: Cassandra 5.0.9 stores one outside the day (negative, or 24 hours or more)
		// and renders it as javaTime does.
		if n != 4 {
			return invalid("Expected 4 byte long for date (%d)", n)
		}
	case primitive.DataTypeCodeTime:
		if n != 8 {
			return invalid("Expected 8 byte long for time (%d)", n)
		}
	case primitive.DataTypeCodeInet:
		if n != 4 && n != 16 && n != 0 {
			return invalid("Invalid length for InetAddress (%d)", n)
		}
	case primitive.DataTypeCodeVarchar:
		if !utf8.Valid(b) {
			return invalid("String didn't validate.")
		}
	case primitive.DataTypeCodeAscii:
		for _, c := range b {
			if c > 127 {
				return invalid("Invalid byte for ascii: %d", c)
			}
		}
	case primitive.DataTypeCodeDecimal:
		if n != 0 && n < 4 {
			return invalid("Expected at least 4 bytes for a decimal (%d)", n)
		}
	case primitive.DataTypeCodeDuration:
		if n != 0 {
			if _, _, _, err := decodeDuration(b); err != nil {
				return invalid("Invalid duration value: %v", err)
			}
		}
	case primitive.DataTypeCodeList, primitive.DataTypeCodeSet:
		elems, err := decodeElems(b)
		if err != nil {
			return collectionError(ty, err)
		}
		for _, e := range elems {
			if e == nil && ty.code == primitive.DataTypeCodeList {
				// Cassandra 5.0.9 validates a list's null element as a value and fails
				// with a server error; a set's is refused as a map's key or value is.
				return &Error{Code: CodeServerError, Message: "java.lang.NullPointerException"}
			}
			if e == nil {
				return invalid("Null value read when not allowed")
			}
			if err := validateValue(ty.elem, e); err != nil {
				return err
			}
		}
	case primitive.DataTypeCodeMap:
		ks, vs, err := decodeMap(b)
		if err != nil {
			return collectionError(ty, err)
		}
		for i := range ks {
			if ks[i] == nil || vs[i] == nil {
				return invalid("Null value read when not allowed")
			}
			if err := validateValue(ty.key, ks[i]); err != nil {
				return err
			}
			if err := validateValue(ty.val, vs[i]); err != nil {
				return err
			}
		}
	case primitive.DataTypeCodeTuple, primitive.DataTypeCodeUdt:
		fs, err := decodeFields(b, len(ty.elems))
		if err != nil {
			return invalid("Invalid %s value: %v", ty.plainString(), err)
		}
		for i, f := range fs {
			if f != nil {
				if err := validateValue(ty.elems[i], f); err != nil {
					return err
				}
			}
		}
	case kindVector:
		if sz := ty.fixedSize(); sz > 0 && n != sz {
			return invalid("Expected %d bytes for a vector of %d elements, got %d", sz, ty.dim, n)
		}
		// The messages are Cassandra 5.0's (which answers a SERVER_ERROR when an element's
		// length runs past the value; cqlsim says not enough bytes).
		es, extra, err := splitVector(ty, b)
		if err != nil {
			return invalid("Not enough bytes to read a %s", ty.plainString())
		}
		if extra != 0 {
			return invalid("Unexpected %d extraneous bytes after %s value", extra, ty.plainString())
		}
		for _, e := range es {
			if err := validateValue(ty.elem, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// collectionError is Cassandra 5.0.9's refusal of a list, set or map value of type ty that
// decodeElems or decodeMap could not split (err).
func collectionError(ty *ctype, err error) *Error {
	kind := map[primitive.DataTypeCode]string{primitive.DataTypeCodeList: "list", primitive.DataTypeCodeSet: "set", primitive.DataTypeCodeMap: "map"}[ty.code]
	switch err {
	case errNegativeCount:
		return invalid("The data cannot be deserialized as a %s", kind)
	case errExtraneous:
		return invalid("Unexpected extraneous bytes after %s value", kind)
	}
	return invalid("Not enough bytes to read a %s", kind)
}

// normalizeValue canonicalises collection values (set order, map key order) so that stored
// values compare and render like Cassandra's.
func normalizeValue(ty *ctype, b []byte) []byte {
	if b == nil {
		return nil
	}
	switch ty.code {
	case primitive.DataTypeCodeSet:
		elems, err := decodeElems(b)
		if err != nil {
			return b
		}
		for i := range elems {
			elems[i] = normalizeValue(ty.elem, elems[i])
		}
		return encodeElems(sortDedup(ty.elem, elems))
	case primitive.DataTypeCodeMap:
		ks, vs, err := decodeMap(b)
		if err != nil {
			return b
		}
		for i := range ks {
			ks[i] = normalizeValue(ty.key, ks[i])
			vs[i] = normalizeValue(ty.val, vs[i])
		}
		ks, vs = sortMap(ty.key, ks, vs)
		return encodeMap(ks, vs)
	case primitive.DataTypeCodeList:
		elems, err := decodeElems(b)
		if err != nil {
			return b
		}
		for i := range elems {
			elems[i] = normalizeValue(ty.elem, elems[i])
		}
		return encodeElems(elems)
	case primitive.DataTypeCodeTuple, primitive.DataTypeCodeUdt:
		fs, err := decodeFields(b, len(ty.elems))
		if err != nil {
			return b
		}
		for i := range fs {
			fs[i] = normalizeValue(ty.elems[i], fs[i])
		}
		if ty.code == primitive.DataTypeCodeTuple {
			// a tuple keeps the number of components it was given: Cassandra keeps the
			// bytes of a shorter one as they are
			fs = fs[:fieldCount(b)]
		}
		// trailing nulls of a UDT are kept: Cassandra serialises all fields
		return encodeFields(fs)
	}
	return b
}

// compareValues orders two encoded values of ty as Cassandra's comparators do; empty values
// sort first and nil (null) before everything.
func compareValues(ty *ctype, a, b []byte) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	if len(a) == 0 || len(b) == 0 {
		return len(a) - len(b)
	}
	switch ty.code {
	case primitive.DataTypeCodeInt:
		if len(a) == 4 && len(b) == 4 {
			return cmpInt(int64(int32(binary.BigEndian.Uint32(a))), int64(int32(binary.BigEndian.Uint32(b))))
		}
	case primitive.DataTypeCodeBigint, primitive.DataTypeCodeCounter, primitive.DataTypeCodeTimestamp:
		if len(a) == 8 && len(b) == 8 {
			return cmpInt(int64(binary.BigEndian.Uint64(a)), int64(binary.BigEndian.Uint64(b)))
		}
	// A time compares by its bytes (Cassandra's TimeType is byte-ordered), so one outside
	// the day that is negative sorts after every time of the day.
	case primitive.DataTypeCodeSmallint:
		if len(a) == 2 && len(b) == 2 {
			return cmpInt(int64(int16(binary.BigEndian.Uint16(a))), int64(int16(binary.BigEndian.Uint16(b))))
		}
	case primitive.DataTypeCodeTinyint:
		if len(a) == 1 && len(b) == 1 {
			return cmpInt(int64(int8(a[0])), int64(int8(b[0])))
		}
	case primitive.DataTypeCodeVarint:
		return decodeVarint(a).Cmp(decodeVarint(b))
	case primitive.DataTypeCodeDecimal:
		return compareDecimals(a, b)
	case primitive.DataTypeCodeFloat:
		if len(a) == 4 && len(b) == 4 {
			return cmpFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(a))), float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
		}
	case primitive.DataTypeCodeDouble:
		if len(a) == 8 && len(b) == 8 {
			return cmpFloat(math.Float64frombits(binary.BigEndian.Uint64(a)), math.Float64frombits(binary.BigEndian.Uint64(b)))
		}
	case primitive.DataTypeCodeTimeuuid:
		if len(a) == 16 && len(b) == 16 {
			if c := cmpInt(uuidTimestamp(a), uuidTimestamp(b)); c != 0 {
				return c
			}
			return compareSignedBytes(a[8:], b[8:])
		}
	case primitive.DataTypeCodeUuid:
		if len(a) == 16 && len(b) == 16 {
			va, vb := a[6]>>4, b[6]>>4
			if va != vb {
				return int(va) - int(vb)
			}
			if va == 1 {
				if c := cmpInt(uuidTimestamp(a), uuidTimestamp(b)); c != 0 {
					return c
				}
				return compareSignedBytes(a[8:], b[8:])
			}
			return bytes.Compare(a, b)
		}
	case primitive.DataTypeCodeList, primitive.DataTypeCodeSet:
		ea, err1 := decodeElems(a)
		eb, err2 := decodeElems(b)
		if err1 == nil && err2 == nil {
			for i := 0; i < len(ea) && i < len(eb); i++ {
				if c := compareValues(ty.elem, ea[i], eb[i]); c != 0 {
					return c
				}
			}
			return len(ea) - len(eb)
		}
	case primitive.DataTypeCodeMap:
		ka, va, err1 := decodeMap(a)
		kb, vb, err2 := decodeMap(b)
		if err1 == nil && err2 == nil {
			for i := 0; i < len(ka) && i < len(kb); i++ {
				if c := compareValues(ty.key, ka[i], kb[i]); c != 0 {
					return c
				}
				if c := compareValues(ty.val, va[i], vb[i]); c != 0 {
					return c
				}
			}
			return len(ka) - len(kb)
		}
	case primitive.DataTypeCodeTuple, primitive.DataTypeCodeUdt:
		fa, err1 := decodeFields(a, len(ty.elems))
		fb, err2 := decodeFields(b, len(ty.elems))
		if err1 == nil && err2 == nil {
			for i := range ty.elems {
				if c := compareValues(ty.elems[i], fa[i], fb[i]); c != 0 {
					return c
				}
			}
			return 0
		}
	}
	return bytes.Compare(a, b)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpFloat orders like Java's Double.compare: -0.0 before 0.0, NaN after everything.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		sa, sb := math.Signbit(a), math.Signbit(b)
		switch {
		case sa == sb:
			return 0
		case sa:
			return -1
		}
		return 1
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	}
	return -1
}

func compareSignedBytes(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if int8(a[i]) != int8(b[i]) {
			return int(int8(a[i])) - int(int8(b[i]))
		}
	}
	return len(a) - len(b)
}

// compareDecimals orders two encoded decimals (a 4-byte scale, then the unscaled varint)
// without computing 10^scale: the scale is an untrusted 32-bit value, and 10^2147483647 takes
// gigabytes and minutes. The decimal exponents of the leading digits are compared first; only
// when they are equal is the scale difference bounded by the digit counts, and cheap to apply.
// A value shorter than its scale counts as zero.
func compareDecimals(a, b []byte) int {
	x, sx := decimalParts(a)
	y, sy := decimalParts(b)
	if x.Sign() != y.Sign() || x.Sign() == 0 {
		return cmpInt(int64(x.Sign()), int64(y.Sign()))
	}
	if sx == sy {
		return x.Cmp(y)
	}
	ex := int64(len(new(big.Int).Abs(x).String())) - sx
	ey := int64(len(new(big.Int).Abs(y).String())) - sy
	if ex != ey {
		if x.Sign() > 0 {
			return cmpInt(ex, ey)
		}
		return cmpInt(ey, ex)
	}
	ten := big.NewInt(10)
	if diff := sx - sy; diff > 0 {
		y = new(big.Int).Mul(y, new(big.Int).Exp(ten, big.NewInt(diff), nil))
	} else {
		x = new(big.Int).Mul(x, new(big.Int).Exp(ten, big.NewInt(-diff), nil))
	}
	return x.Cmp(y)
}

func decimalParts(b []byte) (unscaled *big.Int, scale int64) {
	if len(b) < 4 {
		return new(big.Int), 0
	}
	return decodeVarint(b[4:]), int64(int32(binary.BigEndian.Uint32(b)))
}

// uuidTimestamp extracts the 60-bit timestamp of a version 1 UUID.
func uuidTimestamp(b []byte) int64 {
	timeLow := uint64(binary.BigEndian.Uint32(b[0:4]))
	timeMid := uint64(binary.BigEndian.Uint16(b[4:6]))
	timeHi := uint64(binary.BigEndian.Uint16(b[6:8]) & 0x0FFF)
	return int64(timeHi<<48 | timeMid<<32 | timeLow)
}

// uuidMillis converts a version 1 UUID's timestamp (100 ns units since 1582-10-15) to Unix
// milliseconds, flooring like Cassandra's UUIDGen.unixTimestamp.
func uuidMillis(b []byte) int64 {
	const gregorianOffset = 0x01B21DD213814000
	ts := uuidTimestamp(b) - gregorianOffset
	ms := ts / 10000
	if ts < 0 && ts%10000 != 0 {
		ms--
	}
	return ms
}

// elemError rewords a constant-type mismatch found inside a collection, tuple or UDT literal
// the way Cassandra reports it (naming the literal and the element); other errors pass through.
func elemError(err error, format string, args ...any) error {
	var ce *Error
	if errors.As(err, &ce) && strings.HasPrefix(ce.Message, "Invalid ") && strings.Contains(ce.Message, " constant (") {
		return invalid(format, args...)
	}
	return err
}

// termCQL renders a term back to CQL text, as Cassandra prints terms in messages.
func termCQL(t *cql.Term) string {
	if t == nil {
		return ""
	}
	join := func(ts []*cql.Term) string {
		parts := make([]string, len(ts))
		for i, e := range ts {
			parts[i] = termCQL(e)
		}
		return strings.Join(parts, ", ")
	}
	switch t.Kind {
	case cql.TermString:
		return "'" + strings.ReplaceAll(t.Text, "'", "''") + "'"
	case cql.TermNull:
		return "NULL"
	case cql.TermBind:
		if t.BindName != "" {
			return ":" + t.BindName
		}
		return "?"
	case cql.TermList:
		return "[" + join(t.Elems) + "]"
	case cql.TermSet:
		return "{" + join(t.Elems) + "}"
	case cql.TermEmptyMap:
		return "{}"
	case cql.TermTuple:
		return "(" + join(t.Elems) + ")"
	case cql.TermFunc:
		return t.Text + "(" + join(t.Elems) + ")"
	case cql.TermCast:
		return termCQL(t.Elems[0])
	case cql.TermMap:
		parts := make([]string, len(t.Values))
		for i := range t.Values {
			if t.Fields != nil {
				parts[i] = t.Fields[i] + ": " + termCQL(t.Values[i])
			} else {
				parts[i] = termCQL(t.Elems[i]) + ": " + termCQL(t.Values[i])
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return t.Text
}
