package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// fnValue is a typed, encoded value passed to or returned by a native function.
type fnValue struct {
	typ *ctype
	b   []byte
}

var (
	tTimeUUID = native(primitive.DataTypeCodeTimeuuid)
	tDate     = native(primitive.DataTypeCodeDate)
	tTime     = native(primitive.DataTypeCodeTime)
)

// blobConversion splits "intasblob" / "blobasint" into the native type and the direction.
func blobConversion(name string) (typ *ctype, toBlob, ok bool) {
	if t, found := strings.CutSuffix(name, "asblob"); found {
		if c, known := nativeTypes[t]; known {
			return native(c), true, true
		}
	}
	if t, found := strings.CutPrefix(name, "blobas"); found {
		if c, known := nativeTypes[t]; known {
			return native(c), false, true
		}
	}
	return nil, false, false
}

// functionSignature returns the argument types (used to read literals and bind markers) and the
// result type of a native scalar function, given the types of arguments already known (nil
// where an argument's type comes from the signature).
func functionSignature(name string, args []*ctype) (params []*ctype, result *ctype, err error) {
	arity := func(n int) error {
		if len(args) != n {
			return invalid("Invalid number of arguments in call to function system.%s: %d required but %d provided", name, n, len(args))
		}
		return nil
	}
	timeArg := func(allowed ...primitive.DataTypeCode) (*ctype, error) {
		if err := arity(1); err != nil {
			return nil, err
		}
		if args[0] == nil {
			return native(allowed[0]), nil
		}
		for _, a := range allowed {
			if args[0].code == a {
				return args[0], nil
			}
		}
		return nil, invalid("Type error: %s cannot be passed as argument 0 of function system.%s", args[0].plainString(), name)
	}
	switch name {
	case "now", "currenttimeuuid":
		return nil, tTimeUUID, arity(0)
	case "uuid":
		return nil, tUUID, arity(0)
	case "currenttimestamp":
		return nil, tTimestamp, arity(0)
	case "currentdate":
		return nil, tDate, arity(0)
	case "currenttime":
		return nil, tTime, arity(0)
	case "totimestamp":
		p, err := timeArg(primitive.DataTypeCodeTimeuuid, primitive.DataTypeCodeDate, primitive.DataTypeCodeTimestamp)
		return []*ctype{p}, tTimestamp, err
	case "todate":
		p, err := timeArg(primitive.DataTypeCodeTimeuuid, primitive.DataTypeCodeTimestamp, primitive.DataTypeCodeDate)
		return []*ctype{p}, tDate, err
	case "tounixtimestamp":
		p, err := timeArg(primitive.DataTypeCodeTimeuuid, primitive.DataTypeCodeTimestamp, primitive.DataTypeCodeDate)
		return []*ctype{p}, tBigint, err
	case "mintimeuuid", "maxtimeuuid":
		p, err := timeArg(primitive.DataTypeCodeTimestamp)
		return []*ctype{p}, tTimeUUID, err
	}
	switch name {
	case "tojson":
		if len(args) != 1 {
			return nil, nil, invalid("Invalid number of arguments for function system.tojson(any)")
		}
		if args[0] == nil {
			return nil, nil, invalid("Cannot infer type of argument in call to function system.tojson: use type casts to disambiguate")
		}
		return []*ctype{args[0]}, tText, nil
	case "fromjson":
		// The result has the type of what receives it: Engine.fromJSONTerm reads it.
		if len(args) != 1 {
			return nil, nil, invalid("Invalid number of arguments for function system.fromjson(text)")
		}
		return []*ctype{tText}, tText, nil
	}
	if isSimilarity(name) {
		if len(args) != 2 {
			return nil, nil, invalid("Invalid number of arguments for function system.%s(vector<float, n>, vector<float, n>)", name)
		}
		var vec *ctype
		for _, a := range args {
			switch {
			case a == nil:
			case vec == nil:
				vec = a
			case a.dim != vec.dim:
				return nil, nil, invalid("All arguments must have the same vector dimensions")
			}
		}
		if vec == nil {
			return nil, nil, invalid("Cannot infer type of arguments of function system.%s: use type casts to disambiguate", name)
		}
		return []*ctype{vec, vec}, native(primitive.DataTypeCodeFloat), nil
	}
	if t, toBlob, ok := blobConversion(name); ok {
		if err := arity(1); err != nil {
			return nil, nil, err
		}
		if toBlob {
			return []*ctype{t}, tBlob, nil
		}
		return []*ctype{tBlob}, t, nil
	}
	return nil, nil, invalid("Unknown function '%s'", name)
}

// millisOf converts a timeuuid, timestamp or date value to Unix milliseconds.
func millisOf(v fnValue) (int64, bool) {
	switch {
	case v.typ.code == primitive.DataTypeCodeTimeuuid && len(v.b) == 16:
		return uuidMillis(v.b), true
	case v.typ.code == primitive.DataTypeCodeTimestamp && len(v.b) == 8:
		return int64(binary.BigEndian.Uint64(v.b)), true
	case v.typ.code == primitive.DataTypeCodeDate && len(v.b) == 4:
		days := int64(binary.BigEndian.Uint32(v.b)) - 1<<31
		return days * 86400000, true
	}
	return 0, false
}

// callFunction evaluates a native scalar function on typed arguments (a nil argument gives a
// nil result, as in Cassandra).
func (e *Engine) callFunction(now time.Time, name string, args []fnValue) (fnValue, error) {
	types := make([]*ctype, len(args))
	for i, a := range args {
		types[i] = a.typ
	}
	_, result, err := functionSignature(name, types)
	if err != nil {
		return fnValue{}, err
	}
	out := fnValue{typ: result}
	if name == "tojson" { // null is "null"
		out.b = []byte(toJSON(args[0].typ, args[0].b))
		return out, nil
	}
	for _, a := range args {
		if a.b == nil {
			return out, nil
		}
	}
	switch name {
	case "now", "currenttimeuuid":
		out.b = e.newTimeUUID(now)
	case "uuid":
		out.b = e.randomUUID()
	case "currenttimestamp":
		out.b = binary.BigEndian.AppendUint64(nil, uint64(now.UnixMilli()))
	case "currentdate":
		out.b = binary.BigEndian.AppendUint32(nil, uint32(now.Unix()/86400+1<<31))
	case "currenttime":
		y, m, d := now.Date()
		out.b = binary.BigEndian.AppendUint64(nil, uint64(now.Sub(time.Date(y, m, d, 0, 0, 0, 0, now.Location()))))
	case "totimestamp":
		if ms, ok := millisOf(args[0]); ok {
			out.b = binary.BigEndian.AppendUint64(nil, uint64(ms))
		}
	case "tounixtimestamp":
		if ms, ok := millisOf(args[0]); ok {
			out.b = binary.BigEndian.AppendUint64(nil, uint64(ms))
		}
	case "todate":
		if ms, ok := millisOf(args[0]); ok {
			out.b = millisToDate(ms)
		}
	case "mintimeuuid", "maxtimeuuid":
		if ms, ok := millisOf(args[0]); ok {
			out.b = boundTimeUUID(ms, name == "maxtimeuuid")
		}
	case "fromjson": // nested in another function: the JSON text as it is
		out.b = args[0].b
	case "similarity_cosine", "similarity_euclidean", "similarity_dot_product":
		sim, err := similarity(name, args[0].b, args[1].b)
		if err != nil {
			return fnValue{}, err
		}
		out.b = binary.BigEndian.AppendUint32(nil, math.Float32bits(sim))
	default:
		t, toBlob, _ := blobConversion(name)
		if !toBlob {
			if err := validateValue(t, args[0].b); err != nil {
				return fnValue{}, invalid("In call to function system.%s, value 0x%x is not a valid binary representation for type %s", name, args[0].b, t.plainString())
			}
		}
		out.b = args[0].b
	}
	return out, nil
}

// boundTimeUUID builds the smallest or greatest version 1 UUID of a millisecond, as
// minTimeuuid/maxTimeuuid do.
func boundTimeUUID(ms int64, maxBound bool) []byte {
	const gregorianOffset = 0x01B21DD213814000
	ts := uint64(ms*10000 + gregorianOffset)
	var lowBits uint64 = 0x8080808080808080
	if maxBound {
		ts += 9999
		lowBits = 0x7f7f7f7f7f7f7f7f
	}
	var b [16]byte
	binary.BigEndian.PutUint32(b[0:], uint32(ts))
	binary.BigEndian.PutUint16(b[4:], uint16(ts>>32))
	binary.BigEndian.PutUint16(b[6:], uint16(ts>>48)&0x0FFF|0x1000)
	binary.BigEndian.PutUint64(b[8:], lowBits)
	return b[:]
}

// evalFuncTerm evaluates a function call used as a value (INSERT, UPDATE, WHERE).
func (c *evalCtx) evalFuncTerm(t *cql.Term, name string) (fnValue, error) {
	known := make([]*ctype, len(t.Elems))
	vals := make([]fnValue, len(t.Elems))
	for i, a := range t.Elems {
		if a.Kind == cql.TermFunc {
			v, err := c.evalFuncTerm(a, name)
			if err != nil {
				return fnValue{}, err
			}
			vals[i], known[i] = v, v.typ
		} else if a.Kind == cql.TermUUID {
			known[i] = tTimeUUID
		}
	}
	params, _, err := functionSignature(t.Text, known)
	if err != nil {
		return fnValue{}, err
	}
	for i, a := range t.Elems {
		if vals[i].typ != nil {
			continue
		}
		r, err := c.evalTerm(a, params[i], name)
		if err != nil {
			return fnValue{}, err
		}
		vals[i] = fnValue{typ: params[i], b: r.b}
	}
	return c.e.callFunction(c.now, t.Text, vals)
}

// assignable reports whether a function result of type from can be stored in type to.
func assignable(from, to *ctype) bool {
	return from.code == to.code || (from.code == primitive.DataTypeCodeTimeuuid && to.code == primitive.DataTypeCodeUuid) ||
		(from.code == primitive.DataTypeCodeVarchar && to.code == primitive.DataTypeCodeAscii)
}

// isSimilarity reports whether name is one of Cassandra 5.0's vector similarity functions.
func isSimilarity(name string) bool {
	switch name {
	case "similarity_cosine", "similarity_euclidean", "similarity_dot_product":
		return true
	}
	return false
}

// floatVector checks that ty, the type of argument arg of similarity function name, is a vector
// of floats, as Cassandra requires.
func floatVector(name, arg string, ty *ctype) error {
	if ty.code != kindVector || ty.elem.code != primitive.DataTypeCodeFloat {
		return invalid("Function system.%s requires a float vector argument, but found argument %s of type %s", name, arg, ty.plainString())
	}
	return nil
}

// similarity computes vector similarity function name of the encoded float vectors a and b (of
// one dimension, checked by the signature) as Cassandra 5.0 does, through Lucene's functions:
// sums in single precision, cosine's square root in double, the results mapped to [0, 1]:
// (1 + cosine) / 2, 1 / (1 + squared distance), (1 + dot product) / 2.
func similarity(name string, a, b []byte) (float32, error) {
	if len(a) != len(b) || len(a)%4 != 0 {
		return 0, invalid("All arguments must have the same vector dimensions")
	}
	var dot, normA, normB, dist float32
	for i := 0; i < len(a); i += 4 {
		x := math.Float32frombits(binary.BigEndian.Uint32(a[i:]))
		y := math.Float32frombits(binary.BigEndian.Uint32(b[i:]))
		dot += x * y
		normA += x * x
		normB += y * y
		d := x - y
		dist += d * d
	}
	switch name {
	case "similarity_cosine":
		if normA == 0 || normB == 0 {
			return 0, invalid("Function system.similarity_cosine doesn't support all-zero vectors.")
		}
		cos := float32(float64(dot) / math.Sqrt(float64(normA)*float64(normB)))
		return (1 + cos) / 2, nil
	case "similarity_euclidean":
		return 1 / (1 + dist), nil
	}
	return (1 + dot) / 2, nil
}

// fromJSONTerm evaluates fromJson(json) received by ty (the column or value it is assigned
// to): the JSON text read as a value of ty, as INSERT JSON reads its values; null gives null.
func (c *evalCtx) fromJSONTerm(t *cql.Term, ty *ctype, name string) (termResult, error) {
	if len(t.Elems) != 1 {
		return termResult{}, invalid("Invalid number of arguments for function system.fromjson(text)")
	}
	arg, err := c.evalTerm(t.Elems[0], tText, name)
	if err != nil || arg.b == nil || arg.unset {
		return arg, err
	}
	failure := func(msg string) error {
		return &Error{Code: CodeFunctionFailure, Keyspace: "system", Function: "fromjson", ArgTypes: []string{"text"}, Message: msg}
	}
	v, err := decodeJSONText(arg.b)
	if err != nil {
		return termResult{}, failure(fmt.Sprintf("execution of 'system.fromjson[text]' failed: Could not decode JSON string '%s': %v", arg.b, err))
	}
	b, err := fromJSON(ty, v, name)
	if e, ok := err.(*Error); ok {
		// INSERT JSON names the column; the function reports the value's failure alone
		msg, _ := strings.CutPrefix(e.Message, "Error decoding JSON value for "+name+": ")
		return termResult{}, failure("org.apache.cassandra.serializers.MarshalException: " + msg)
	}
	return termResult{b: b}, err
}
