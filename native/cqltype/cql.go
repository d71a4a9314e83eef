package cqltype

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrMalformedCQLType reports type text that ParseCQL cannot read; its errors
// wrap it.
var ErrMalformedCQLType = errors.New("cqltype: malformed CQL type")

var nativeNames = map[string]Kind{
	"ascii": KindASCII, "bigint": KindBigint, "blob": KindBlob, "boolean": KindBoolean, "counter": KindCounter,
	"decimal": KindDecimal, "double": KindDouble, "float": KindFloat, "int": KindInt, "timestamp": KindTimestamp,
	"uuid": KindUUID, "varchar": KindVarchar, "text": KindVarchar, "varint": KindVarint, "timeuuid": KindTimeUUID,
	"inet": KindInet, "date": KindDate, "time": KindTime, "smallint": KindSmallint, "tinyint": KindTinyint,
	"duration": KindDuration,
}

// ParseCQL parses a type written in CQL syntax, as in CREATE TABLE statements and
// the type column of system_schema.columns: "int", "map<text, frozen<list<int>>>",
// "tuple<int, text>", "vector<float, 3>", "'org.example.MyType'". frozen<...> is
// accepted and dropped. Any other name is a user-defined type: the result has
// Kind KindUDT with Name (and Keyspace for "ks.name") set and no Fields, for the
// caller to resolve from the schema. Names are case-insensitive unless
// double-quoted.
func ParseCQL(s string) (*Type, error) {
	p := cqlParser{s: s}
	t, err := p.parse(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.off != len(p.s) {
		return nil, p.fail("unexpected text after the type")
	}
	return t, nil
}

type cqlParser struct {
	s   string
	off int
}

func (p *cqlParser) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d of %q", ErrMalformedCQLType, what, p.off, p.s)
}

func (p *cqlParser) skipSpace() {
	for p.off < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.off]) >= 0 {
		p.off++
	}
}

func (p *cqlParser) accept(c byte) bool {
	p.skipSpace()
	if p.off < len(p.s) && p.s[p.off] == c {
		p.off++
		return true
	}
	return false
}

func (p *cqlParser) expect(c byte) error {
	if !p.accept(c) {
		return p.fail(fmt.Sprintf("expected %q", c))
	}
	return nil
}

// ident reads an identifier, lower-cased unless double-quoted ("" escapes ").
func (p *cqlParser) ident() (string, error) {
	p.skipSpace()
	if p.off < len(p.s) && p.s[p.off] == '"' {
		var sb strings.Builder
		for p.off++; p.off < len(p.s); p.off++ {
			c := p.s[p.off]
			if c == '"' {
				if p.off+1 < len(p.s) && p.s[p.off+1] == '"' {
					sb.WriteByte('"')
					p.off++
					continue
				}
				p.off++
				return sb.String(), nil
			}
			sb.WriteByte(c)
		}
		return "", p.fail("unterminated quoted name")
	}
	start := p.off
	for p.off < len(p.s) {
		c := p.s[p.off]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.off++
			continue
		}
		break
	}
	if p.off == start {
		return "", p.fail("expected a type name")
	}
	return strings.ToLower(p.s[start:p.off]), nil
}

func (p *cqlParser) parse(depth int) (*Type, error) {
	if depth > maxTypeDepth {
		return nil, p.fail("type nested too deeply")
	}
	p.skipSpace()
	if p.off < len(p.s) && p.s[p.off] == '\'' {
		return p.custom()
	}
	quoted := p.off < len(p.s) && p.s[p.off] == '"'
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	if !quoted {
		if k, ok := nativeNames[name]; ok {
			return &Type{Kind: k}, nil
		}
		switch name {
		case "frozen":
			if err := p.expect('<'); err != nil {
				return nil, err
			}
			t, err := p.parse(depth + 1)
			if err != nil {
				return nil, err
			}
			return t, p.expect('>')
		case "list", "set":
			if err := p.expect('<'); err != nil {
				return nil, err
			}
			elem, err := p.parse(depth + 1)
			if err != nil {
				return nil, err
			}
			k := KindList
			if name == "set" {
				k = KindSet
			}
			return &Type{Kind: k, Elem: elem}, p.expect('>')
		case "map":
			if err := p.expect('<'); err != nil {
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
			return &Type{Kind: KindMap, Key: key, Value: val}, p.expect('>')
		case "tuple":
			if err := p.expect('<'); err != nil {
				return nil, err
			}
			t := &Type{Kind: KindTuple}
			for {
				e, err := p.parse(depth + 1)
				if err != nil {
					return nil, err
				}
				t.Elems = append(t.Elems, e)
				if !p.accept(',') {
					break
				}
			}
			return t, p.expect('>')
		case "vector":
			if err := p.expect('<'); err != nil {
				return nil, err
			}
			elem, err := p.parse(depth + 1)
			if err != nil {
				return nil, err
			}
			if err := p.expect(','); err != nil {
				return nil, err
			}
			p.skipSpace()
			start := p.off
			for p.off < len(p.s) && p.s[p.off] >= '0' && p.s[p.off] <= '9' {
				p.off++
			}
			dim, err := strconv.Atoi(p.s[start:p.off])
			// Cassandra's dimension is a Java int: anything larger cannot come from a server.
			if err != nil || dim <= 0 || dim > math.MaxInt32 {
				return nil, p.fail("vector dimension must be an integer from 1 to 2147483647")
			}
			return &Type{Kind: KindVector, Elem: elem, Dim: dim}, p.expect('>')
		}
	}
	t := &Type{Kind: KindUDT, Name: name}
	if p.accept('.') {
		udt, err := p.ident()
		if err != nil {
			return nil, err
		}
		t.Keyspace, t.Name = name, udt
	}
	return t, nil
}

// custom reads a single-quoted class name, in which a doubled quote stands for one.
func (p *cqlParser) custom() (*Type, error) {
	var sb strings.Builder
	for p.off++; p.off < len(p.s); p.off++ {
		c := p.s[p.off]
		if c == '\'' {
			if p.off+1 < len(p.s) && p.s[p.off+1] == '\'' {
				sb.WriteByte('\'')
				p.off++
				continue
			}
			p.off++
			class := sb.String()
			if isVectorClass(class) {
				return ParseClass(class)
			}
			return &Type{Kind: KindCustom, Custom: class}, nil
		}
		sb.WriteByte(c)
	}
	return nil, p.fail("unterminated quoted class name")
}

// Equal reports whether t and u describe the same type: same kind and the same
// parameters, UDT keyspace, name and fields included.
func (t *Type) Equal(u *Type) bool {
	if t == nil || u == nil {
		return t == u
	}
	if t.Kind != u.Kind || t.Custom != u.Custom || t.Dim != u.Dim || t.Keyspace != u.Keyspace || t.Name != u.Name ||
		len(t.Fields) != len(u.Fields) || len(t.Elems) != len(u.Elems) {
		return false
	}
	if (t.Elem != nil || u.Elem != nil) && !t.Elem.Equal(u.Elem) {
		return false
	}
	if (t.Key != nil || u.Key != nil) && !t.Key.Equal(u.Key) {
		return false
	}
	if (t.Value != nil || u.Value != nil) && !t.Value.Equal(u.Value) {
		return false
	}
	for i, f := range t.Fields {
		if f.Name != u.Fields[i].Name || !f.Type.Equal(u.Fields[i].Type) {
			return false
		}
	}
	for i, e := range t.Elems {
		if !e.Equal(u.Elems[i]) {
			return false
		}
	}
	return true
}
