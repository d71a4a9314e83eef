package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// javaDouble formats a float like Java's Double.toString / Float.toString (shortest digits,
// ".0" on integral values, E notation below 1e-3 and from 1e7).
func javaDouble(f float64, bitSize int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	s := strconv.FormatFloat(f, 'e', -1, bitSize) // d.ddde±xx
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if abs := math.Abs(f); abs >= 1e-3 && abs < 1e7 {
		if exp >= 0 {
			for len(digits) < exp+2 {
				digits += "0"
			}
			out = digits[:exp+1] + "." + digits[exp+1:]
		} else {
			out = "0." + strings.Repeat("0", -exp-1) + digits
		}
	} else {
		frac := digits[1:]
		if frac == "" {
			frac = "0"
		}
		out = digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
	}
	if neg {
		out = "-" + out
	}
	return out
}

// javaBigDecimal renders a decimal like Java's BigDecimal.toString.
func javaBigDecimal(b []byte) string {
	if len(b) < 4 {
		return "0"
	}
	scale := int(int32(binary.BigEndian.Uint32(b)))
	n := decodeVarint(b[4:])
	neg := n.Sign() < 0
	digits := new(big.Int).Abs(n).String()
	adjusted := -scale + len(digits) - 1
	var out string
	switch {
	case scale >= 0 && adjusted >= -6:
		if scale == 0 {
			out = digits
		} else if len(digits) > scale {
			out = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
		} else {
			out = "0." + strings.Repeat("0", scale-len(digits)) + digits
		}
	default:
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		out += "E"
		if adjusted >= 0 {
			out += "+"
		}
		out += strconv.Itoa(adjusted)
	}
	if neg {
		out = "-" + out
	}
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// formatDuration renders a duration like Cassandra's Duration.toString (e.g. 1y2mo3d4h5m6s).
func formatDuration(b []byte) string {
	months, days, nanos, err := decodeDuration(b)
	if err != nil {
		return ""
	}
	var sb strings.Builder
	if months < 0 || days < 0 || nanos < 0 {
		sb.WriteString("-")
		months, days, nanos = -months, -days, -nanos
	}
	unit := func(v int64, u string) {
		if v != 0 {
			sb.WriteString(strconv.FormatInt(v, 10))
			sb.WriteString(u)
		}
	}
	unit(months/12, "y")
	unit(months%12, "mo")
	unit(days, "d")
	unit(nanos/int64(time.Hour), "h")
	nanos %= int64(time.Hour)
	unit(nanos/int64(time.Minute), "m")
	nanos %= int64(time.Minute)
	unit(nanos/int64(time.Second), "s")
	nanos %= int64(time.Second)
	unit(nanos/int64(time.Millisecond), "ms")
	nanos %= int64(time.Millisecond)
	unit(nanos/int64(time.Microsecond), "us")
	unit(nanos%int64(time.Microsecond), "ns")
	if sb.Len() == 0 {
		return "0s"
	}
	return sb.String()
}

// toJSON renders an encoded value as Cassandra's toJson does.
func toJSON(ty *ctype, b []byte) string {
	if b == nil {
		return "null"
	}
	if len(b) == 0 && ty.code != primitive.DataTypeCodeVarchar && ty.code != primitive.DataTypeCodeAscii && ty.code != primitive.DataTypeCodeBlob {
		return "null"
	}
	switch ty.code {
	case primitive.DataTypeCodeVarchar, primitive.DataTypeCodeAscii:
		return jsonString(string(b))
	case primitive.DataTypeCodeInt, primitive.DataTypeCodeBigint, primitive.DataTypeCodeCounter, primitive.DataTypeCodeSmallint, primitive.DataTypeCodeTinyint:
		return strconv.FormatInt(signedInt(b), 10)
	case primitive.DataTypeCodeVarint:
		return decodeVarint(b).String()
	case primitive.DataTypeCodeDecimal:
		return javaBigDecimal(b)
	case primitive.DataTypeCodeFloat, primitive.DataTypeCodeDouble:
		f := float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
		size := 32
		if ty.code == primitive.DataTypeCodeDouble {
			f, size = math.Float64frombits(binary.BigEndian.Uint64(b)), 64
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "null" // JSON has no NaN or Infinity
		}
		return javaDouble(f, size)
	case primitive.DataTypeCodeBoolean:
		return strconv.FormatBool(b[0] != 0)
	case primitive.DataTypeCodeBlob:
		return jsonString("0x" + hex.EncodeToString(b))
	case primitive.DataTypeCodeUuid, primitive.DataTypeCodeTimeuuid:
		return jsonString(formatUUID(b))
	case primitive.DataTypeCodeInet:
		return jsonString(net.IP(b).String())
	case primitive.DataTypeCodeTimestamp:
		return jsonString(javaTimestampLayout(int64(binary.BigEndian.Uint64(b)), "-01-02 15:04:05.000Z"))
	case primitive.DataTypeCodeDate:
		return jsonString(javaDate(int64(binary.BigEndian.Uint32(b)) - 1<<31))
	case primitive.DataTypeCodeTime:
		return jsonString(javaTime(int64(binary.BigEndian.Uint64(b))))
	case primitive.DataTypeCodeDuration:
		return jsonString(formatDuration(b))
	case primitive.DataTypeCodeList, primitive.DataTypeCodeSet:
		es, err := decodeElems(b)
		if err != nil {
			return "null"
		}
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = toJSON(ty.elem, e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case primitive.DataTypeCodeMap:
		ks, vs, err := decodeMap(b)
		if err != nil {
			return "null"
		}
		parts := make([]string, len(ks))
		for i := range ks {
			k := toJSON(ty.key, ks[i])
			if !strings.HasPrefix(k, `"`) {
				k = jsonString(k)
			}
			parts[i] = k + ": " + toJSON(ty.val, vs[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case primitive.DataTypeCodeTuple:
		fs, err := decodeFields(b, len(ty.elems))
		if err != nil {
			return "null"
		}
		parts := make([]string, len(fs))
		for i, f := range fs {
			parts[i] = toJSON(ty.elems[i], f)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case primitive.DataTypeCodeUdt:
		fs, err := decodeFields(b, len(ty.elems))
		if err != nil {
			return "null"
		}
		parts := make([]string, len(fs))
		for i, f := range fs {
			parts[i] = jsonString(quoteIdent(ty.fields[i])) + ": " + toJSON(ty.elems[i], f)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case kindVector:
		es, extra, err := splitVector(ty, b)
		if err != nil || extra != 0 {
			return jsonString("0x" + hex.EncodeToString(b))
		}
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = toJSON(ty.elem, e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return jsonString("0x" + hex.EncodeToString(b))
}

// javaJSONClass names the Java class Jackson decodes a JSON value to, as Cassandra's errors
// name it: a whole number is an Integer, a Long or a BigInteger by its size, other numbers are
// Doubles.
func javaJSONClass(v any) string {
	switch x := v.(type) {
	case json.Number:
		s := x.String()
		if strings.ContainsAny(s, ".eE") {
			return "Double"
		}
		n, err := strconv.ParseInt(s, 10, 64)
		switch {
		case err != nil:
			return "BigInteger"
		case n < math.MinInt32 || n > math.MaxInt32:
			return "Long"
		}
		return "Integer"
	case bool:
		return "Boolean"
	case []any:
		return "ArrayList"
	case map[string]any:
		return "LinkedHashMap"
	}
	return "String"
}

// javaJSONText writes a decoded JSON value as Java's toString writes the value Jackson decodes
// it to (a map's entries in the order of their keys: the document's order is not kept).
func javaJSONText(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case json.Number:
		switch javaJSONClass(x) {
		case "Double":
			f, _ := strconv.ParseFloat(x.String(), 64)
			return javaDouble(f, 64)
		case "BigInteger":
			n, _ := new(big.Int).SetString(x.String(), 10)
			return n.String()
		}
		n, _ := strconv.ParseInt(x.String(), 10, 64)
		return strconv.FormatInt(n, 10)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = javaJSONText(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + javaJSONText(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// fromJSON converts a decoded JSON value to ty's encoding.
func fromJSON(ty *ctype, v any, name string) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	bad := func() error {
		return invalid("Error decoding JSON value for %s: Unable to make %s from '%v'", name, ty.plainString(), v)
	}
	ctx := &evalCtx{}
	lit := func(kind cql.TermKind, text string) ([]byte, error) {
		return ctx.literal(&cql.Term{Kind: kind, Text: text}, ty, name)
	}
	switch ty.code {
	case primitive.DataTypeCodeInt, primitive.DataTypeCodeBigint, primitive.DataTypeCodeCounter, primitive.DataTypeCodeSmallint,
		primitive.DataTypeCodeTinyint, primitive.DataTypeCodeVarint:
		switch x := v.(type) {
		case json.Number:
			return lit(cql.TermInteger, x.String())
		case string:
			return lit(cql.TermInteger, x)
		}
	case primitive.DataTypeCodeFloat, primitive.DataTypeCodeDouble, primitive.DataTypeCodeDecimal:
		switch x := v.(type) {
		case json.Number:
			return lit(cql.TermFloat, x.String())
		case string:
			return lit(cql.TermFloat, x)
		}
	case primitive.DataTypeCodeVarchar, primitive.DataTypeCodeAscii, primitive.DataTypeCodeInet:
		if s, ok := v.(string); ok {
			return lit(cql.TermString, s)
		}
	case primitive.DataTypeCodeBoolean:
		switch x := v.(type) {
		case bool:
			return encBool(x), nil
		case string:
			if strings.EqualFold(x, "true") || strings.EqualFold(x, "false") {
				return encBool(strings.EqualFold(x, "true")), nil
			}
		}
	case primitive.DataTypeCodeBlob:
		if s, ok := v.(string); ok && strings.HasPrefix(s, "0x") {
			return lit(cql.TermHex, s)
		}
	case primitive.DataTypeCodeUuid, primitive.DataTypeCodeTimeuuid:
		if s, ok := v.(string); ok {
			return lit(cql.TermUUID, s)
		}
	case primitive.DataTypeCodeDate, primitive.DataTypeCodeTime:
		if x, ok := v.(string); ok {
			return lit(cql.TermString, x)
		}
		return nil, invalid("Error decoding JSON value for %s: Expected a string representation of a %s value, but got a %s: %s", name, ty.plainString(), javaJSONClass(v), javaJSONText(v))
	case primitive.DataTypeCodeTimestamp:
		switch x := v.(type) {
		case json.Number:
			if javaJSONClass(x) == "Long" { // Jackson's type: a number that fits 32 bits is refused
				return lit(cql.TermInteger, x.String())
			}
		case string:
			return lit(cql.TermString, x)
		}
		return nil, invalid("Error decoding JSON value for %s: Expected a long or a datestring representation of a timestamp value, but got a %s: %s", name, javaJSONClass(v), javaJSONText(v))
	case primitive.DataTypeCodeDuration:
		if s, ok := v.(string); ok {
			return lit(cql.TermDuration, s)
		}
	case primitive.DataTypeCodeList, primitive.DataTypeCodeSet, kindVector:
		arr, ok := v.([]any)
		if !ok {
			return nil, bad()
		}
		elems := make([][]byte, 0, len(arr))
		for _, e := range arr {
			b, err := fromJSON(ty.elem, e, name)
			if err != nil {
				return nil, err
			}
			if b == nil {
				return nil, invalid("null is not supported inside collections")
			}
			elems = append(elems, b)
		}
		if ty.code == kindVector {
			if len(elems) != ty.dim {
				return nil, bad()
			}
			var out []byte
			variable := ty.elem.fixedSize() == 0
			for _, e := range elems {
				if variable {
					out = appendUvint(out, uint64(len(e)))
				}
				out = append(out, e...)
			}
			return out, nil
		}
		if ty.code == primitive.DataTypeCodeSet {
			elems = sortDedup(ty.elem, elems)
		}
		return encodeElems(elems), nil
	case primitive.DataTypeCodeMap:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, bad()
		}
		var ks, vs [][]byte
		for k, val := range obj {
			var kv any = k
			if ty.key.code != primitive.DataTypeCodeVarchar && ty.key.code != primitive.DataTypeCodeAscii {
				// A key is its JSON text read leniently, as Cassandra reads it: "01" is 1, and a
				// key that is no JSON value (a date, a uuid) or is null ("null") is the string.
				if d, err := decodeJSONText([]byte(k)); err == nil && d != nil {
					kv = d
				}
			}
			kb, err := fromJSON(ty.key, kv, name)
			if err != nil {
				return nil, err
			}
			if kb == nil {
				return nil, invalid("Error decoding JSON value for %s: Invalid null value in map", name)
			}
			vb, err := fromJSON(ty.val, val, name)
			if err != nil {
				return nil, err
			}
			if vb == nil {
				return nil, invalid("Error decoding JSON value for %s: Invalid null value in map", name)
			}
			ks, vs = append(ks, kb), append(vs, vb)
		}
		ks, vs = sortMap(ty.key, ks, vs)
		return encodeMap(ks, vs), nil
	case primitive.DataTypeCodeTuple:
		arr, ok := v.([]any)
		if !ok {
			return nil, bad()
		}
		if len(arr) > len(ty.elems) {
			return nil, invalid("Error decoding JSON value for %s: Tuple contains extra items (expected %d): %s", name, len(ty.elems), javaListString(arr))
		}
		fs := make([][]byte, len(ty.elems))
		for i, e := range arr {
			b, err := fromJSON(ty.elems[i], e, name)
			if err != nil {
				return nil, err
			}
			fs[i] = b
		}
		return encodeFields(fs), nil
	case primitive.DataTypeCodeUdt:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, bad()
		}
		fs := make([][]byte, len(ty.elems))
		for k, val := range obj {
			idx := fieldIndex(ty, jsonColumnName(k))
			if idx < 0 {
				return nil, invalid("Unknown field '%s' in value of user defined type %s", k, ty.name)
			}
			b, err := fromJSON(ty.elems[idx], val, name)
			if err != nil {
				return nil, err
			}
			fs[idx] = b
		}
		return encodeFields(fs), nil
	}
	return nil, bad()
}

// jsonColumnName maps a JSON key to a column name: lower-cased unless double-quoted.
func jsonColumnName(k string) string {
	if len(k) >= 2 && strings.HasPrefix(k, `"`) && strings.HasSuffix(k, `"`) {
		return strings.ReplaceAll(k[1:len(k)-1], `""`, `"`)
	}
	return strings.ToLower(k)
}

// decodeJSONText decodes the JSON text of fromJson as Cassandra's parser does: one value,
// numbers as json.Number, trailing input left unread, but a number followed at once by more of
// a number ("01": a leading zero), which the Go decoder would read as its first digit alone,
// refused.
func decodeJSONText(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, num := v.(json.Number); num {
		if off := int(dec.InputOffset()); off < len(b) && strings.IndexByte("0123456789.eE+-", b[off]) >= 0 {
			return nil, fmt.Errorf("%w: %q", errJSONNumber, b)
		}
	}
	return v, nil
}

// errJSONNumber is decodeJSONText's error for a number a strict parser refuses.
var errJSONNumber = errors.New("invalid JSON number")

// javaListString writes a decoded JSON array as Java's List.toString writes the list Jackson
// made of it: [1, x, null].
func javaListString(arr []any) string {
	parts := make([]string, len(arr))
	for i, e := range arr {
		switch x := e.(type) {
		case nil:
			parts[i] = "null"
		case []any:
			parts[i] = javaListString(x)
		default:
			parts[i] = fmt.Sprint(x)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
