package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// castSources lists, for each type CAST can produce, the argument types of Cassandra 5.0's
// system.cast_as_<type> overloads. The order is the one a Cassandra 5.0.9 node lists them in
// its errors (a hash order, which may differ from one Cassandra process to another). A target
// type missing here has no cast function at all.
var castSources = map[string][]primitive.DataTypeCode{
	"ascii": {primitive.DataTypeCodeDecimal, primitive.DataTypeCodeVarint, primitive.DataTypeCodeTimeuuid,
		primitive.DataTypeCodeInt, primitive.DataTypeCodeTinyint, primitive.DataTypeCodeBoolean, primitive.DataTypeCodeCounter,
		primitive.DataTypeCodeTime, primitive.DataTypeCodeUuid, primitive.DataTypeCodeBigint, primitive.DataTypeCodeTimestamp,
		primitive.DataTypeCodeDouble, primitive.DataTypeCodeDate, primitive.DataTypeCodeInet, primitive.DataTypeCodeSmallint,
		primitive.DataTypeCodeFloat},
	"text": {primitive.DataTypeCodeTinyint, primitive.DataTypeCodeInt, primitive.DataTypeCodeBigint, primitive.DataTypeCodeDecimal,
		primitive.DataTypeCodeTimeuuid, primitive.DataTypeCodeFloat, primitive.DataTypeCodeDouble, primitive.DataTypeCodeVarint,
		primitive.DataTypeCodeDate, primitive.DataTypeCodeTime, primitive.DataTypeCodeInet, primitive.DataTypeCodeSmallint,
		primitive.DataTypeCodeUuid, primitive.DataTypeCodeAscii, primitive.DataTypeCodeCounter, primitive.DataTypeCodeTimestamp,
		primitive.DataTypeCodeBoolean},
	"bigint": {primitive.DataTypeCodeSmallint, primitive.DataTypeCodeCounter, primitive.DataTypeCodeVarint, primitive.DataTypeCodeDouble,
		primitive.DataTypeCodeTinyint, primitive.DataTypeCodeFloat, primitive.DataTypeCodeInt, primitive.DataTypeCodeDecimal},
	"date": {primitive.DataTypeCodeTimeuuid, primitive.DataTypeCodeTimestamp},
	"decimal": {primitive.DataTypeCodeTinyint, primitive.DataTypeCodeInt, primitive.DataTypeCodeSmallint, primitive.DataTypeCodeBigint,
		primitive.DataTypeCodeDouble, primitive.DataTypeCodeFloat, primitive.DataTypeCodeCounter, primitive.DataTypeCodeVarint},
	"double": {primitive.DataTypeCodeDecimal, primitive.DataTypeCodeInt, primitive.DataTypeCodeSmallint, primitive.DataTypeCodeBigint,
		primitive.DataTypeCodeTinyint, primitive.DataTypeCodeFloat, primitive.DataTypeCodeCounter, primitive.DataTypeCodeVarint},
	"float": {primitive.DataTypeCodeTinyint, primitive.DataTypeCodeCounter, primitive.DataTypeCodeVarint, primitive.DataTypeCodeDouble,
		primitive.DataTypeCodeDecimal, primitive.DataTypeCodeInt, primitive.DataTypeCodeSmallint, primitive.DataTypeCodeBigint},
	"int": {primitive.DataTypeCodeSmallint, primitive.DataTypeCodeTinyint, primitive.DataTypeCodeCounter, primitive.DataTypeCodeFloat,
		primitive.DataTypeCodeDouble, primitive.DataTypeCodeDecimal, primitive.DataTypeCodeVarint, primitive.DataTypeCodeBigint},
	"smallint": {primitive.DataTypeCodeTinyint, primitive.DataTypeCodeFloat, primitive.DataTypeCodeCounter, primitive.DataTypeCodeBigint,
		primitive.DataTypeCodeVarint, primitive.DataTypeCodeDouble, primitive.DataTypeCodeInt, primitive.DataTypeCodeDecimal},
	"timestamp": {primitive.DataTypeCodeDate, primitive.DataTypeCodeTimeuuid},
	"tinyint": {primitive.DataTypeCodeFloat, primitive.DataTypeCodeBigint, primitive.DataTypeCodeCounter, primitive.DataTypeCodeDouble,
		primitive.DataTypeCodeDecimal, primitive.DataTypeCodeVarint, primitive.DataTypeCodeInt, primitive.DataTypeCodeSmallint},
	"varint": {primitive.DataTypeCodeDouble, primitive.DataTypeCodeDecimal, primitive.DataTypeCodeBigint, primitive.DataTypeCodeInt,
		primitive.DataTypeCodeSmallint, primitive.DataTypeCodeTinyint, primitive.DataTypeCodeFloat, primitive.DataTypeCodeCounter},
}

// valueCompatible reports whether a parameter of type param accepts a value of type arg that
// is not its own type, as Cassandra's isValueCompatibleWith does for the parameter types of
// the cast functions: bigint reads a timestamp, varint an int, a bigint or a timestamp,
// timestamp a bigint, date an int, and text an ascii value.
func valueCompatible(param, arg primitive.DataTypeCode) bool {
	switch param {
	case primitive.DataTypeCodeBigint:
		return arg == primitive.DataTypeCodeTimestamp
	case primitive.DataTypeCodeVarint:
		return arg == primitive.DataTypeCodeInt || arg == primitive.DataTypeCodeBigint || arg == primitive.DataTypeCodeTimestamp
	case primitive.DataTypeCodeTimestamp:
		return arg == primitive.DataTypeCodeBigint
	case primitive.DataTypeCodeDate:
		return arg == primitive.DataTypeCodeInt
	case primitive.DataTypeCodeVarchar:
		return arg == primitive.DataTypeCodeAscii
	}
	return false
}

// errNoCastFunction is returned by analyseSelector for a CAST to a type that has no cast
// function; planSelect turns it into Cassandra's message, which names the selection's first
// column.
type errNoCastFunction struct{ target string }

func (e *errNoCastFunction) Error() string { return "no cast function to " + e.target }

// noCastFunctionError is Cassandra's answer to a CAST to a type without cast function: it
// names the first column the selection reads, or fails with a server error when it reads none.
func noCastFunctionError(sels []cql.Selector, upto int, target string) error {
	for i := 0; i <= upto && i < len(sels); i++ {
		if c := firstSelectedColumn(&sels[i]); c != "" {
			return invalid("%s cannot be cast to %s", c, target)
		}
	}
	return &Error{Code: CodeServerError, Message: "java.lang.IndexOutOfBoundsException: Index 0 out of bounds for length 0"}
}

// firstSelectedColumn returns the first column a selector reads (depth first), or "".
func firstSelectedColumn(s *cql.Selector) string {
	if s.Kind == cql.SelColumn {
		return s.Name
	}
	for _, a := range s.Args {
		if c := firstSelectedColumn(a); c != "" {
			return c
		}
	}
	return ""
}

// castSignature renders one overload of a cast function as Cassandra lists it.
func castSignature(target string, src primitive.DataTypeCode) string {
	return fmt.Sprintf("system.cast_as_%s : (%s) -> %s", target, nativeNames[src], target)
}

// analyseCast types CAST(arg AS target). A cast to the argument's own type is the argument
// itself (its name included); otherwise the cast_as_<target> overload is chosen as Cassandra's
// function resolution chooses it: the one taking the argument's type, else the only one whose
// parameter accepts the argument's values.
func analyseCast(t *table, s *cql.Selector) (*selItem, error) {
	arg := s.Args[0]
	if arg.Kind == cql.SelTerm && arg.Term.Kind != cql.TermCast {
		text := termCQL(arg.Term)
		switch arg.Term.Kind {
		case cql.TermNull:
			text = "NULL"
		case cql.TermBind:
			text = "?"
		}
		return nil, invalid("Cannot infer type for term %s in selection clause (try using a cast to force a type)", text)
	}
	var inner *selItem
	if arg.Kind == cql.SelTerm {
		ce := arg.Term.Cast
		code, ok := nativeTypes[ce.Name]
		if !ok || ce.Keyspace != "" || len(ce.Args) > 0 || arg.Term.Elems[0].Kind == cql.TermBind {
			return nil, unsupported("this CAST argument (" + arg.Raw + ")")
		}
		inner = &selItem{kind: selConst, term: arg.Term.Elems[0], typ: native(code), name: arg.Raw}
	} else {
		var err error
		if inner, err = analyseSelector(t, arg); err != nil {
			return nil, err
		}
	}
	if inner.aggregate() {
		return nil, unsupported("CAST of an aggregate")
	}
	target := s.Name
	if code, ok := nativeTypes[target]; ok && inner.typ.code == code && !inner.typ.multiCell() {
		return inner, nil
	}
	if target == "varchar" {
		return nil, &errNoCastFunction{target}
	}
	sources, ok := castSources[target]
	if !ok {
		return nil, &errNoCastFunction{target}
	}
	var from []primitive.DataTypeCode
	for _, src := range sources {
		if src == inner.typ.code {
			from = []primitive.DataTypeCode{src}
			break
		}
		if valueCompatible(src, inner.typ.code) {
			from = append(from, src)
		}
	}
	sigs := func(codes []primitive.DataTypeCode) string {
		parts := make([]string, len(codes))
		for i, c := range codes {
			parts[i] = castSignature(target, c)
		}
		return strings.Join(parts, ", ")
	}
	switch len(from) {
	case 0:
		return nil, invalid("Invalid call to function system.cast_as_%s, none of its type signatures match (known type signatures: %s)", target, sigs(sources))
	case 1:
	default:
		return nil, invalid("Ambiguous call to function system.cast_as_%s (can be matched by following signatures: %s): use type casts to disambiguate", target, sigs(from))
	}
	return &selItem{kind: selCast, args: []selItem{*inner}, castFrom: native(from[0]), typ: native(nativeTypes[target]),
		name: "cast(" + inner.name + " as " + target + ")"}, nil
}

// castNumber is a numeric value as Java's Number sees it: an integer (tinyint to bigint and
// counter), a float, a double, a decimal or a varint.
type castNumber struct {
	code    primitive.DataTypeCode
	i       int64
	f       float64
	big     *big.Int // varint, or a decimal's unscaled value
	scale   int32    // decimal
	decText string   // decimal, as BigDecimal.toString renders it
}

func readCastNumber(code primitive.DataTypeCode, b []byte) castNumber {
	n := castNumber{code: code}
	switch code {
	case primitive.DataTypeCodeFloat:
		n.f = float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
	case primitive.DataTypeCodeDouble:
		n.f = math.Float64frombits(binary.BigEndian.Uint64(b))
	case primitive.DataTypeCodeVarint:
		n.big = decodeVarint(b)
	case primitive.DataTypeCodeDecimal:
		n.big, _ = decimalParts(b)
		n.scale = int32(binary.BigEndian.Uint32(b))
		n.decText = javaBigDecimal(b)
	default:
		n.i = signedInt(b)
	}
	return n
}

// integral returns the value truncated toward zero as Java's intValue (bits 32) or
// longValue (bits 64) do: floats saturate (NaN is 0), big numbers keep their low-order bits.
func (n castNumber) integral(bits int) int64 {
	switch n.code {
	case primitive.DataTypeCodeFloat, primitive.DataTypeCodeDouble:
		return javaFloatToInt(n.f, bits)
	case primitive.DataTypeCodeVarint:
		return lowBits(n.big)
	case primitive.DataTypeCodeDecimal:
		return lowBits(n.truncated())
	}
	return n.i
}

// truncated is a decimal's integer part (rounded toward zero).
func (n castNumber) truncated() *big.Int {
	v := new(big.Int).Set(n.big)
	if n.scale <= 0 {
		return v.Mul(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(-int64(n.scale)), nil))
	}
	return v.Quo(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n.scale)), nil))
}

// lowBits returns the low-order 64 bits of v in two's complement, as BigInteger.longValue does.
func lowBits(v *big.Int) int64 {
	m := new(big.Int).And(v, new(big.Int).SetUint64(math.MaxUint64))
	return int64(m.Uint64())
}

// javaFloatToInt converts like Java's (int) or (long) cast of a double: toward zero,
// saturating at the type's bounds, NaN to 0.
func javaFloatToInt(f float64, bits int) int64 {
	lo, hi := float64(math.MinInt32), float64(math.MaxInt32)
	if bits == 64 {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	switch {
	case math.IsNaN(f):
		return 0
	case f <= lo:
		return int64(lo)
	case f >= hi:
		if bits == 64 {
			return math.MaxInt64
		}
		return math.MaxInt32
	}
	return int64(f)
}

// float returns the value as Java's doubleValue (bits 64) or floatValue (bits 32) does.
func (n castNumber) float(bits int) float64 {
	switch n.code {
	case primitive.DataTypeCodeFloat, primitive.DataTypeCodeDouble:
		if bits == 32 {
			return float64(float32(n.f))
		}
		return n.f
	case primitive.DataTypeCodeVarint:
		f := new(big.Float).SetInt(n.big)
		if bits == 32 {
			v, _ := f.Float32()
			return float64(v)
		}
		v, _ := f.Float64()
		return v
	case primitive.DataTypeCodeDecimal:
		v, _ := strconv.ParseFloat(n.decText, bits)
		return v
	}
	if bits == 32 {
		return float64(float32(n.i))
	}
	return float64(n.i)
}

// castNumeric converts a number to the numeric type to, as Cassandra 5.0's cast functions do.
func castNumeric(n castNumber, to primitive.DataTypeCode) ([]byte, error) {
	switch to {
	case primitive.DataTypeCodeTinyint:
		return []byte{byte(int8(n.integral(32)))}, nil
	case primitive.DataTypeCodeSmallint:
		return binary.BigEndian.AppendUint16(nil, uint16(int16(n.integral(32)))), nil
	case primitive.DataTypeCodeInt:
		return binary.BigEndian.AppendUint32(nil, uint32(int32(n.integral(32)))), nil
	case primitive.DataTypeCodeBigint:
		return binary.BigEndian.AppendUint64(nil, uint64(n.integral(64))), nil
	case primitive.DataTypeCodeFloat:
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(n.float(32)))), nil
	case primitive.DataTypeCodeDouble:
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(n.float(64))), nil
	case primitive.DataTypeCodeVarint:
		return encodeVarint(big.NewInt(n.integral(64))), nil
	case primitive.DataTypeCodeDecimal:
		switch n.code {
		case primitive.DataTypeCodeVarint:
			return append([]byte{0, 0, 0, 0}, encodeVarint(n.big)...), nil
		case primitive.DataTypeCodeFloat, primitive.DataTypeCodeDouble:
			// new BigDecimal(Float.toString(f)) and BigDecimal.valueOf(d): the shortest text
			bits := 64
			if n.code == primitive.DataTypeCodeFloat {
				bits = 32
			}
			text := javaDouble(n.f, bits)
			if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
				c := strings.TrimPrefix(text, "-")[0]
				return nil, &Error{Code: CodeServerError, Message: fmt.Sprintf(`java.lang.NumberFormatException: Character %c is neither a decimal digit number, decimal point, nor "e" notation exponential mark.`, c)}
			}
			return parseDecimal(text)
		}
		return append([]byte{0, 0, 0, 0}, encodeVarint(big.NewInt(n.i))...), nil
	}
	return nil, fmt.Errorf("cqlsim: no numeric cast to %s", nativeNames[to])
}

// castText renders a value of type from as Cassandra's cast to text or ascii does (the
// serializer's CQL literal form).
func castText(from primitive.DataTypeCode, b []byte) string {
	switch from {
	case primitive.DataTypeCodeAscii, primitive.DataTypeCodeVarchar:
		return string(b)
	case primitive.DataTypeCodeFloat, primitive.DataTypeCodeDouble:
		bits := 64
		if from == primitive.DataTypeCodeFloat {
			bits = 32
		}
		return javaDouble(readCastNumber(from, b).f, bits)
	case primitive.DataTypeCodeDecimal:
		return javaBigDecimal(b)
	case primitive.DataTypeCodeVarint:
		return decodeVarint(b).String()
	case primitive.DataTypeCodeBoolean:
		return strconv.FormatBool(b[0] != 0)
	case primitive.DataTypeCodeUuid, primitive.DataTypeCodeTimeuuid:
		return formatUUID(b)
	case primitive.DataTypeCodeInet:
		return javaInet(b)
	case primitive.DataTypeCodeTimestamp:
		return javaTimestamp(int64(binary.BigEndian.Uint64(b)))
	case primitive.DataTypeCodeDate:
		return javaDate(int64(binary.BigEndian.Uint32(b)) - 1<<31)
	case primitive.DataTypeCodeTime:
		return javaTime(int64(binary.BigEndian.Uint64(b)))
	}
	return strconv.FormatInt(signedInt(b), 10)
}

// javaInet renders an address as Java's InetAddress.getHostAddress: an IPv4 (or IPv4-mapped
// IPv6) address dotted, other IPv6 addresses as eight hexadecimal groups without compression.
func javaInet(b []byte) string {
	ip := net.IP(b)
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	if len(b) != 16 {
		return ip.String()
	}
	parts := make([]string, 8)
	for i := range parts {
		parts[i] = strconv.FormatUint(uint64(binary.BigEndian.Uint16(b[2*i:])), 16)
	}
	return strings.Join(parts, ":")
}

// javaYear formats a year as Java's formatters print it: four digits at least, a "+" before
// years of more than four digits (and a "-" before negative ones).
func javaYear(y int) string {
	switch {
	case y > 9999:
		return "+" + strconv.Itoa(y)
	case y < 0:
		return fmt.Sprintf("-%04d", -y)
	}
	return fmt.Sprintf("%04d", y)
}

// javaTimestamp renders Unix milliseconds as Cassandra's cast of a timestamp to text does:
// ISO 8601 in UTC with milliseconds; the year is the year of the era (1 BC is year 1).
func javaTimestamp(ms int64) string {
	return javaTimestampLayout(ms, "-01-02T15:04:05.000Z")
}

// javaTimestampLayout renders Unix milliseconds in UTC as the year of the era (see javaYear)
// followed by the rest of the time in the Go layout rest.
func javaTimestampLayout(ms int64, rest string) string {
	t := time.UnixMilli(ms).UTC()
	y := t.Year()
	if y <= 0 {
		y = 1 - y
	}
	return javaYear(y) + t.Format(rest)
}

// javaTime renders nanoseconds since midnight as Cassandra 5.0.9's TimeSerializer.toString
// does. A bound time value may be any eight bytes (the server checks only their count), and
// that rendering takes any value apart field by field with Java's remainders: the hours
// wrap at 24 (math.MaxInt64 is 23:47:16.854775807) and a negative value's fields are negative,
// padded as if they were not (-1 is 00:00:00.00000000-1).
func javaTime(v int64) string {
	var fields [6]int64 // nanoseconds, microseconds, milliseconds, seconds, minutes, hours
	for i, unit := range [6]int64{1000, 1000, 1000, 60, 60, 24} {
		fields[i] = v % unit
		v = (v - fields[i]) / unit
	}
	var sb strings.Builder
	pad := func(x int64, digits int) {
		for i := 1; i < digits; i++ {
			if float64(x) < math.Pow10(i) {
				sb.WriteByte('0')
			}
		}
		sb.WriteString(strconv.FormatInt(x, 10))
	}
	pad(fields[5], 2)
	sb.WriteByte(':')
	pad(fields[4], 2)
	sb.WriteByte(':')
	pad(fields[3], 2)
	sb.WriteByte('.')
	pad(fields[2], 3)
	pad(fields[1], 3)
	pad(fields[0], 3)
	return sb.String()
}

// javaDate renders days since the epoch as Cassandra's cast of a date to text does (ISO
// 8601, proleptic Gregorian calendar).
func javaDate(days int64) string {
	t := time.Unix(days*86400, 0).UTC()
	return javaYear(t.Year()) + t.Format("-01-02")
}

// millisToDate converts Unix milliseconds to a date value as Cassandra's toDate does: whole
// seconds (rounded down), then whole days (rounded toward zero), wrapped to 32 bits.
func millisToDate(ms int64) []byte {
	secs := ms / 1000
	if ms%1000 < 0 {
		secs--
	}
	days := int32(secs / 86400)
	return binary.BigEndian.AppendUint32(nil, uint32(days)+1<<31)
}

// castValue converts an encoded value of type from to type to (a cast_as_<to> overload of
// Cassandra 5.0). A null gives null; so does an empty value, except for a date (or an int
// read as one) cast to a timestamp, which Cassandra fails on.
func castValue(from, to *ctype, b []byte) ([]byte, error) {
	if b == nil {
		return nil, nil
	}
	if len(b) == 0 {
		if from.code == primitive.DataTypeCodeDate && to.code == primitive.DataTypeCodeTimestamp {
			return nil, &Error{Code: CodeServerError, Message: "java.lang.IndexOutOfBoundsException"}
		}
		return nil, nil
	}
	if err := validateValue(from, b); err != nil { // stored values are valid; never read past one
		return nil, invalid("Invalid %s value for CAST: %v", from.plainString(), err)
	}
	switch to.code {
	case primitive.DataTypeCodeVarchar, primitive.DataTypeCodeAscii:
		return []byte(castText(from.code, b)), nil
	case primitive.DataTypeCodeDate:
		ms, _ := millisOf(fnValue{typ: from, b: b})
		return millisToDate(ms), nil
	case primitive.DataTypeCodeTimestamp:
		ms, _ := millisOf(fnValue{typ: from, b: b})
		return binary.BigEndian.AppendUint64(nil, uint64(ms)), nil
	}
	return castNumeric(readCastNumber(from.code, b), to.code)
}
