package cqltype

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Kind identifies a CQL type. The values are the protocol [option] ids, except
// KindVector, which is synthetic: the protocol sends a vector as a custom type
// whose class is org.apache.cassandra.db.marshal.VectorType(<elem class>, <dim>).
type Kind uint16

// The CQL type kinds, valued as the protocol [option] ids.
const (
	KindCustom    Kind = 0x0000
	KindASCII     Kind = 0x0001
	KindBigint    Kind = 0x0002
	KindBlob      Kind = 0x0003
	KindBoolean   Kind = 0x0004
	KindCounter   Kind = 0x0005
	KindDecimal   Kind = 0x0006
	KindDouble    Kind = 0x0007
	KindFloat     Kind = 0x0008
	KindInt       Kind = 0x0009
	KindTimestamp Kind = 0x000B
	KindUUID      Kind = 0x000C
	KindVarchar   Kind = 0x000D
	KindVarint    Kind = 0x000E
	KindTimeUUID  Kind = 0x000F
	KindInet      Kind = 0x0010
	KindDate      Kind = 0x0011
	KindTime      Kind = 0x0012
	KindSmallint  Kind = 0x0013
	KindTinyint   Kind = 0x0014
	KindDuration  Kind = 0x0015
	KindList      Kind = 0x0020
	KindMap       Kind = 0x0021
	KindSet       Kind = 0x0022
	KindUDT       Kind = 0x0030
	KindTuple     Kind = 0x0031
	// KindVector is not a protocol id: vectors travel as KindCustom with a
	// VectorType class name, and ParseOption turns them into KindVector.
	KindVector Kind = 0x1000
)

// String returns the CQL name of the kind ("int", "text", "list", ...).
func (k Kind) String() string {
	switch k {
	case KindCustom:
		return "custom"
	case KindASCII:
		return "ascii"
	case KindBigint:
		return "bigint"
	case KindBlob:
		return "blob"
	case KindBoolean:
		return "boolean"
	case KindCounter:
		return "counter"
	case KindDecimal:
		return "decimal"
	case KindDouble:
		return "double"
	case KindFloat:
		return "float"
	case KindInt:
		return "int"
	case KindTimestamp:
		return "timestamp"
	case KindUUID:
		return "uuid"
	case KindVarchar:
		return "text"
	case KindVarint:
		return "varint"
	case KindTimeUUID:
		return "timeuuid"
	case KindInet:
		return "inet"
	case KindDate:
		return "date"
	case KindTime:
		return "time"
	case KindSmallint:
		return "smallint"
	case KindTinyint:
		return "tinyint"
	case KindDuration:
		return "duration"
	case KindList:
		return "list"
	case KindMap:
		return "map"
	case KindSet:
		return "set"
	case KindUDT:
		return "udt"
	case KindTuple:
		return "tuple"
	case KindVector:
		return "vector"
	}
	return "kind(0x" + strconv.FormatUint(uint64(k), 16) + ")"
}

// Type describes a CQL type. Which fields are set depends on Kind: Custom for
// KindCustom, Elem for list, set and vector (with Dim), Key and Value for map,
// Keyspace, Name and Fields for UDT, Elems for tuple. A Type is treated as
// immutable once built; share it freely between goroutines.
type Type struct {
	Kind       Kind
	Custom     string  // class name, for KindCustom
	Elem       *Type   // element type, for list, set and vector
	Key, Value *Type   // key and value types, for map
	Keyspace   string  // keyspace of a UDT
	Name       string  // name of a UDT
	Fields     []Field // fields of a UDT, in declaration order
	Elems      []*Type // component types of a tuple
	Dim        int     // dimension of a vector
	// ServerClass is, for a type the server described by its class name (a vector, or a
	// duration under protocol v4), that name exactly as sent, which Class returns; empty
	// otherwise. Equal ignores it.
	ServerClass string
}

// Field is one field of a user-defined type.
type Field struct {
	Name string
	Type *Type
}

// NewList returns the type list<elem>.
func NewList(elem *Type) *Type { return &Type{Kind: KindList, Elem: elem} }

// NewSet returns the type set<elem>.
func NewSet(elem *Type) *Type { return &Type{Kind: KindSet, Elem: elem} }

// NewMap returns the type map<key, value>.
func NewMap(key, value *Type) *Type { return &Type{Kind: KindMap, Key: key, Value: value} }

// NewTuple returns the type tuple<elems...>.
func NewTuple(elems ...*Type) *Type { return &Type{Kind: KindTuple, Elems: elems} }

// NewVector returns the type vector<elem, dim>.
func NewVector(elem *Type, dim int) *Type { return &Type{Kind: KindVector, Elem: elem, Dim: dim} }

// NewUDT returns a user-defined type keyspace.name with the given fields.
func NewUDT(keyspace, name string, fields ...Field) *Type {
	return &Type{Kind: KindUDT, Keyspace: keyspace, Name: name, Fields: fields}
}

// New returns the type of a kind without parameters (a native type such as
// KindInt or KindVarchar).
func New(k Kind) *Type { return &Type{Kind: k} }

// ErrMalformedOption reports an [option] that cannot be decoded. Errors returned
// by ParseOption wrap it.
var ErrMalformedOption = errors.New("cqltype: malformed type option")

// maxTypeDepth bounds the nesting of parsed types so that hostile input cannot
// exhaust the stack.
const maxTypeDepth = 64

// ParseOption decodes one protocol [option] describing a type from b and returns
// the type and the number of bytes it used. A custom type whose class names a
// type this package knows becomes that type: a VectorType class becomes a
// KindVector type, DurationType (how Cassandra describes durations under
// protocol v4) KindDuration. Other custom classes, and classes that cannot be
// parsed, stay KindCustom.
func ParseOption(b []byte) (t *Type, n int, err error) {
	p := optionParser{b: b}
	t, err = p.parse(0)
	if err != nil {
		return nil, 0, err
	}
	return t, p.off, nil
}

type optionParser struct {
	b   []byte
	off int
}

func (p *optionParser) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d of %d bytes", ErrMalformedOption, what, p.off, len(p.b))
}

func (p *optionParser) short() (uint16, error) {
	if len(p.b)-p.off < 2 {
		return 0, p.fail("truncated [short]")
	}
	v := binary.BigEndian.Uint16(p.b[p.off:])
	p.off += 2
	return v, nil
}

func (p *optionParser) str() (string, error) {
	n, err := p.short()
	if err != nil {
		return "", err
	}
	if len(p.b)-p.off < int(n) {
		return "", p.fail("truncated [string]")
	}
	s := string(p.b[p.off : p.off+int(n)])
	p.off += int(n)
	return s, nil
}

func (p *optionParser) parse(depth int) (*Type, error) {
	if depth > maxTypeDepth {
		return nil, p.fail("type nested too deeply")
	}
	id, err := p.short()
	if err != nil {
		return nil, err
	}
	k := Kind(id)
	switch k {
	case KindASCII, KindBigint, KindBlob, KindBoolean, KindCounter, KindDecimal, KindDouble,
		KindFloat, KindInt, KindTimestamp, KindUUID, KindVarchar, KindVarint, KindTimeUUID,
		KindInet, KindDate, KindTime, KindSmallint, KindTinyint, KindDuration:
		return &Type{Kind: k}, nil
	case KindCustom:
		class, err := p.str()
		if err != nil {
			return nil, err
		}
		// Cassandra describes some types by class name: vectors always, and
		// duration under protocol v4. A class this package cannot read stays a
		// custom type, so that the rest of the metadata and the raw values
		// remain usable.
		if t, err := ParseClass(class); err == nil && t.Kind != KindCustom {
			t.ServerClass = class
			return t, nil
		}
		return &Type{Kind: KindCustom, Custom: class}, nil
	case KindList, KindSet:
		elem, err := p.parse(depth + 1)
		if err != nil {
			return nil, err
		}
		return &Type{Kind: k, Elem: elem}, nil
	case KindMap:
		key, err := p.parse(depth + 1)
		if err != nil {
			return nil, err
		}
		val, err := p.parse(depth + 1)
		if err != nil {
			return nil, err
		}
		return &Type{Kind: KindMap, Key: key, Value: val}, nil
	case KindUDT:
		ks, err := p.str()
		if err != nil {
			return nil, err
		}
		name, err := p.str()
		if err != nil {
			return nil, err
		}
		n, err := p.short()
		if err != nil {
			return nil, err
		}
		// Each field needs at least 4 bytes; never trust n for the allocation.
		fields := make([]Field, 0, min(int(n), (len(p.b)-p.off)/4))
		for range int(n) {
			fname, err := p.str()
			if err != nil {
				return nil, err
			}
			ft, err := p.parse(depth + 1)
			if err != nil {
				return nil, err
			}
			fields = append(fields, Field{Name: fname, Type: ft})
		}
		return &Type{Kind: KindUDT, Keyspace: ks, Name: name, Fields: fields}, nil
	case KindTuple:
		n, err := p.short()
		if err != nil {
			return nil, err
		}
		elems := make([]*Type, 0, min(int(n), (len(p.b)-p.off)/2))
		for range int(n) {
			et, err := p.parse(depth + 1)
			if err != nil {
				return nil, err
			}
			elems = append(elems, et)
		}
		return &Type{Kind: KindTuple, Elems: elems}, nil
	}
	p.off -= 2
	return nil, p.fail(fmt.Sprintf("unknown type id 0x%04x", id))
}

// AppendOption appends the protocol [option] encoding of t to dst. A vector is
// written as a custom type with its VectorType class name.
func (t *Type) AppendOption(dst []byte) []byte {
	switch t.Kind {
	case KindCustom:
		dst = binary.BigEndian.AppendUint16(dst, uint16(KindCustom))
		return appendShortString(dst, t.Custom)
	case KindVector:
		dst = binary.BigEndian.AppendUint16(dst, uint16(KindCustom))
		return appendShortString(dst, t.Class())
	case KindList, KindSet:
		dst = binary.BigEndian.AppendUint16(dst, uint16(t.Kind))
		return t.Elem.AppendOption(dst)
	case KindMap:
		dst = binary.BigEndian.AppendUint16(dst, uint16(t.Kind))
		dst = t.Key.AppendOption(dst)
		return t.Value.AppendOption(dst)
	case KindUDT:
		dst = binary.BigEndian.AppendUint16(dst, uint16(t.Kind))
		dst = appendShortString(dst, t.Keyspace)
		dst = appendShortString(dst, t.Name)
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(t.Fields)))
		for _, f := range t.Fields {
			dst = appendShortString(dst, f.Name)
			dst = f.Type.AppendOption(dst)
		}
		return dst
	case KindTuple:
		dst = binary.BigEndian.AppendUint16(dst, uint16(t.Kind))
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(t.Elems)))
		for _, e := range t.Elems {
			dst = e.AppendOption(dst)
		}
		return dst
	}
	return binary.BigEndian.AppendUint16(dst, uint16(t.Kind))
}

func appendShortString(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(s)))
	return append(dst, s...)
}

// String returns the type in CQL syntax, for example "map<text, frozen<list<int>>>".
// Collections, tuples and UDTs nested inside another type are shown frozen, as CQL
// requires; a UDT is shown by its name (without its keyspace), double-quoted when CQL
// needs it, as Cassandra shows it in system_schema: a name that is not lower-case letters,
// digits and underscores ("Pt"), or that is a keyword (select, int, list); a custom type by
// its quoted class name.
func (t *Type) String() string {
	if t == nil {
		return "<nil type>"
	}
	var sb strings.Builder
	t.writeCQL(&sb, false)
	return sb.String()
}

func (t *Type) writeCQL(sb *strings.Builder, nested bool) {
	if t == nil {
		sb.WriteString("<nil type>")
		return
	}
	switch t.Kind {
	case KindList, KindSet, KindMap, KindUDT, KindTuple:
		if nested {
			sb.WriteString("frozen<")
			t.writeCQL(sb, false)
			sb.WriteByte('>')
			return
		}
	}
	switch t.Kind {
	case KindCustom:
		sb.WriteByte('\'')
		sb.WriteString(strings.ReplaceAll(t.Custom, "'", "''"))
		sb.WriteByte('\'')
	case KindList, KindSet:
		sb.WriteString(t.Kind.String())
		sb.WriteByte('<')
		t.Elem.writeCQL(sb, true)
		sb.WriteByte('>')
	case KindMap:
		sb.WriteString("map<")
		t.Key.writeCQL(sb, true)
		sb.WriteString(", ")
		t.Value.writeCQL(sb, true)
		sb.WriteByte('>')
	case KindTuple:
		sb.WriteString("tuple<")
		for i, e := range t.Elems {
			if i > 0 {
				sb.WriteString(", ")
			}
			e.writeCQL(sb, true)
		}
		sb.WriteByte('>')
	case KindUDT:
		if t.Name == "" {
			sb.WriteString("udt")
		} else {
			sb.WriteString(cqlName(t.Name))
		}
	case KindVector:
		sb.WriteString("vector<")
		t.Elem.writeCQL(sb, true)
		sb.WriteString(", ")
		sb.WriteString(strconv.Itoa(t.Dim))
		sb.WriteByte('>')
	default:
		sb.WriteString(t.Kind.String())
	}
}

// cqlName returns a UDT name as CQL text names it: as is when it is a plain lower-case
// identifier ([a-z][a-z0-9_]*) that is not a keyword, else double-quoted, inner quotes
// doubled. Quoting a name that did not need it is harmless; not quoting one that did changes
// the name (case-folding "Pt" to pt) or breaks the syntax.
func cqlName(name string) string {
	plain := !typeNameKeywords[name]
	for i := 0; i < len(name) && plain; i++ {
		c := name[i]
		plain = c >= 'a' && c <= 'z' || i > 0 && (c == '_' || c >= '0' && c <= '9')
	}
	if plain {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// typeNameKeywords are the words that a UDT name must be quoted to be: Cassandra's reserved
// keywords (which it quotes itself in system_schema), the names of the native types and the
// words of type syntax (which ParseCQL would read as those), and the unreserved keywords
// that Cassandra 5 refuses as an unquoted type name.
var typeNameKeywords = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`add allow alter and apply asc authorize batch begin by
		columnfamily create default delete desc describe drop entries execute for from full
		grant if in index infinity insert into is keyspace limit materialized mbean mbeans
		modify nan norecursive not null of on or order primary rename replace restrict revoke
		schema select set table to token truncate unlogged unrestrict unset update use using
		view where with
		frozen list map tuple vector
		cast count distinct json maxwritetime ttl writetime`) {
		m[w] = true
	}
	for w := range nativeNames {
		m[w] = true
	}
	return m
}()
