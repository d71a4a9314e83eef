package cqltype

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// marshalPrefix is the package of Cassandra's type classes.
const marshalPrefix = "org.apache.cassandra.db.marshal."

// ErrMalformedClass reports a Cassandra type class name that cannot be parsed.
// Errors returned by ParseClass wrap it.
var ErrMalformedClass = errors.New("cqltype: malformed type class name")

var classKinds = map[string]Kind{
	"AsciiType":         KindASCII,
	"LongType":          KindBigint,
	"BytesType":         KindBlob,
	"BooleanType":       KindBoolean,
	"CounterColumnType": KindCounter,
	"DecimalType":       KindDecimal,
	"DoubleType":        KindDouble,
	"FloatType":         KindFloat,
	"Int32Type":         KindInt,
	"TimestampType":     KindTimestamp,
	"DateType":          KindTimestamp,
	"UUIDType":          KindUUID,
	"UTF8Type":          KindVarchar,
	"IntegerType":       KindVarint,
	"TimeUUIDType":      KindTimeUUID,
	"InetAddressType":   KindInet,
	"SimpleDateType":    KindDate,
	"TimeType":          KindTime,
	"ShortType":         KindSmallint,
	"ByteType":          KindTinyint,
	"DurationType":      KindDuration,
}

var kindClasses = map[Kind]string{
	KindASCII:     "AsciiType",
	KindBigint:    "LongType",
	KindBlob:      "BytesType",
	KindBoolean:   "BooleanType",
	KindCounter:   "CounterColumnType",
	KindDecimal:   "DecimalType",
	KindDouble:    "DoubleType",
	KindFloat:     "FloatType",
	KindInt:       "Int32Type",
	KindTimestamp: "TimestampType",
	KindUUID:      "UUIDType",
	KindVarchar:   "UTF8Type",
	KindVarint:    "IntegerType",
	KindTimeUUID:  "TimeUUIDType",
	KindInet:      "InetAddressType",
	KindDate:      "SimpleDateType",
	KindTime:      "TimeType",
	KindSmallint:  "ShortType",
	KindTinyint:   "ByteType",
	KindDuration:  "DurationType",
	KindList:      "ListType",
	KindSet:       "SetType",
	KindMap:       "MapType",
	KindTuple:     "TupleType",
	KindUDT:       "UserType",
	KindVector:    "VectorType",
}

func isVectorClass(class string) bool {
	name := strings.TrimPrefix(strings.TrimSpace(class), marshalPrefix)
	return strings.HasPrefix(name, "VectorType(")
}

// ParseClass parses a Cassandra type class name such as
// "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 3)"
// into a Type. FrozenType and ReversedType wrappers are dropped; an unknown class
// becomes a KindCustom type holding the class name.
func ParseClass(class string) (*Type, error) {
	p := classParser{s: class}
	t, err := p.parse(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.off != len(p.s) {
		return nil, p.fail("unexpected trailing text")
	}
	return t, nil
}

type classParser struct {
	s   string
	off int
}

func (p *classParser) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d of %q", ErrMalformedClass, what, p.off, p.s)
}

func (p *classParser) skipSpace() {
	for p.off < len(p.s) && (p.s[p.off] == ' ' || p.s[p.off] == '\t') {
		p.off++
	}
}

// token reads up to the next '(', ')', ',' or end of input.
func (p *classParser) token() string {
	p.skipSpace()
	start := p.off
	for p.off < len(p.s) {
		switch p.s[p.off] {
		case '(', ')', ',':
			return strings.TrimSpace(p.s[start:p.off])
		}
		p.off++
	}
	return strings.TrimSpace(p.s[start:p.off])
}

func (p *classParser) peek() byte {
	p.skipSpace()
	if p.off < len(p.s) {
		return p.s[p.off]
	}
	return 0
}

func (p *classParser) expect(c byte) error {
	if p.peek() != c {
		return p.fail(fmt.Sprintf("expected %q", c))
	}
	p.off++
	return nil
}

func (p *classParser) parse(depth int) (*Type, error) {
	if depth > maxTypeDepth {
		return nil, p.fail("type nested too deeply")
	}
	start := p.off
	full := p.token()
	if full == "" {
		return nil, p.fail("missing class name")
	}
	name := strings.TrimPrefix(full, marshalPrefix)
	if k, ok := classKinds[name]; ok {
		return &Type{Kind: k}, nil
	}
	switch name {
	case "FrozenType", "ReversedType":
		if err := p.expect('('); err != nil {
			return nil, err
		}
		t, err := p.parse(depth + 1)
		if err != nil {
			return nil, err
		}
		return t, p.expect(')')
	case "ListType", "SetType":
		if err := p.expect('('); err != nil {
			return nil, err
		}
		elem, err := p.parse(depth + 1)
		if err != nil {
			return nil, err
		}
		k := KindList
		if name == "SetType" {
			k = KindSet
		}
		return &Type{Kind: k, Elem: elem}, p.expect(')')
	case "MapType":
		if err := p.expect('('); err != nil {
			return nil, err
		}
		key, err := p.parse(depth + 1)
		if err != nil {
			return nil, err
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
		val, err := p.parse(depth + 1)
		if err != nil {
			return nil, err
		}
		return &Type{Kind: KindMap, Key: key, Value: val}, p.expect(')')
	case "TupleType":
		if err := p.expect('('); err != nil {
			return nil, err
		}
		t := &Type{Kind: KindTuple}
		for {
			e, err := p.parse(depth + 1)
			if err != nil {
				return nil, err
			}
			t.Elems = append(t.Elems, e)
			if p.peek() != ',' {
				break
			}
			p.off++
		}
		return t, p.expect(')')
	case "VectorType":
		if err := p.expect('('); err != nil {
			return nil, err
		}
		elem, err := p.parse(depth + 1)
		if err != nil {
			return nil, err
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
		dimText := p.token()
		dim, err := strconv.Atoi(dimText)
		// Cassandra's dimension is a Java int: anything larger cannot come from a server.
		if err != nil || dim <= 0 || dim > math.MaxInt32 {
			return nil, p.fail(fmt.Sprintf("bad vector dimension %q", dimText))
		}
		return &Type{Kind: KindVector, Elem: elem, Dim: dim}, p.expect(')')
	case "UserType":
		return p.parseUDT(depth)
	}
	if p.peek() == '(' {
		// An unknown parameterised class: keep its whole text as the custom class.
		level := 0
		for p.off < len(p.s) {
			switch p.s[p.off] {
			case '(':
				level++
			case ')':
				level--
			}
			p.off++
			if level == 0 {
				break
			}
		}
		if level != 0 {
			return nil, p.fail("unbalanced parentheses")
		}
		return &Type{Kind: KindCustom, Custom: strings.TrimSpace(p.s[start:p.off])}, nil
	}
	return &Type{Kind: KindCustom, Custom: full}, nil
}

// parseUDT parses the arguments of UserType(keyspace, hexname, hexfield:class, ...).
func (p *classParser) parseUDT(depth int) (*Type, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	ks := p.token()
	if err := p.expect(','); err != nil {
		return nil, err
	}
	hexName := p.token()
	name, err := hex.DecodeString(hexName)
	if err != nil {
		return nil, p.fail(fmt.Sprintf("bad hex UDT name %q", hexName))
	}
	t := &Type{Kind: KindUDT, Keyspace: ks, Name: string(name)}
	for p.peek() == ',' {
		p.off++
		p.skipSpace()
		colon := strings.IndexByte(p.s[p.off:], ':')
		if colon < 0 {
			return nil, p.fail("UDT field without ':'")
		}
		fieldName, err := hex.DecodeString(strings.TrimSpace(p.s[p.off : p.off+colon]))
		if err != nil {
			return nil, p.fail("bad hex UDT field name")
		}
		p.off += colon + 1
		ft, err := p.parse(depth + 1)
		if err != nil {
			return nil, err
		}
		t.Fields = append(t.Fields, Field{Name: string(fieldName), Type: ft})
	}
	return t, p.expect(')')
}

// Class returns the Cassandra class name of t, the inverse of ParseClass (up to
// FrozenType wrappers, which are not reproduced). A custom type returns its class
// name unchanged, and a type the server described by class name (ServerClass) the
// name as the server spelled it.
func (t *Type) Class() string {
	if t.ServerClass != "" {
		return t.ServerClass
	}
	var sb strings.Builder
	t.writeClass(&sb)
	return sb.String()
}

func (t *Type) writeClass(sb *strings.Builder) {
	if t.Kind == KindCustom {
		sb.WriteString(t.Custom)
		return
	}
	sb.WriteString(marshalPrefix)
	name, ok := kindClasses[t.Kind]
	if !ok {
		name = "UnknownType"
	}
	sb.WriteString(name)
	switch t.Kind {
	case KindList, KindSet:
		sb.WriteByte('(')
		t.Elem.writeClass(sb)
		sb.WriteByte(')')
	case KindMap:
		sb.WriteByte('(')
		t.Key.writeClass(sb)
		sb.WriteByte(',')
		t.Value.writeClass(sb)
		sb.WriteByte(')')
	case KindTuple:
		sb.WriteByte('(')
		for i, e := range t.Elems {
			if i > 0 {
				sb.WriteByte(',')
			}
			e.writeClass(sb)
		}
		sb.WriteByte(')')
	case KindUDT:
		sb.WriteByte('(')
		sb.WriteString(t.Keyspace)
		sb.WriteByte(',')
		sb.WriteString(hex.EncodeToString([]byte(t.Name)))
		for _, f := range t.Fields {
			sb.WriteByte(',')
			sb.WriteString(hex.EncodeToString([]byte(f.Name)))
			sb.WriteByte(':')
			f.Type.writeClass(sb)
		}
		sb.WriteByte(')')
	case KindVector:
		sb.WriteByte('(')
		t.Elem.writeClass(sb)
		sb.WriteString(", ")
		sb.WriteString(strconv.Itoa(t.Dim))
		sb.WriteByte(')')
	}
}
