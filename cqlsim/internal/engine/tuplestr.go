package engine

import (
	"encoding/hex"
	"strings"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// tupleFromString reads a constant given for a tuple (a string, number, boolean, uuid or
// duration) as Cassandra does: it takes the constant's text as the tuple's string form, the
// components separated by ':' ('\:' is a colon inside a component, '\@' an at sign) and '@'
// standing for null. A text of fewer components than the type has gives a shorter value,
// which Cassandra keeps as it is (so 1 is not the same key as (1, null)), and the empty text
// gives the empty value.
func tupleFromString(ty *ctype, s string) ([]byte, error) {
	parts := splitTupleString(s)
	if len(parts) > len(ty.elems) {
		return nil, invalid("Invalid tuple literal: too many elements. Type frozen<%s> expects %d but got %d", ty.plainString(), len(ty.elems), len(parts))
	}
	fields := make([][]byte, len(parts))
	for i, p := range parts {
		if p == "@" {
			continue
		}
		p = strings.NewReplacer(`\:`, ":", `\@`, "@").Replace(p)
		b, err := valueFromString(ty.elems[i], p)
		if err != nil {
			return nil, err
		}
		fields[i] = b
	}
	return encodeFields(fields), nil
}

// splitTupleString splits the string form of a tuple at each ':' that no '\' precedes; the
// empty string has no component.
func splitTupleString(s string) []string {
	if s == "" {
		return nil
	}
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i == 0 || s[i-1] != '\\') {
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// valueFromString converts the string form of a tuple component to its encoding: numbers,
// booleans (in any case), uuids, dates and times as their CQL constants would be, text as it
// is, blobs as hexadecimal digits without 0x, and the empty string to the empty value. Other
// types (collections, tuples, user types) are read as the hexadecimal digits of their
// serialized form, as Cassandra reads them there.
func valueFromString(ty *ctype, s string) ([]byte, error) {
	if s == "" {
		return []byte{}, nil
	}
	ctx := &evalCtx{}
	lit := func(kind cql.TermKind) ([]byte, error) {
		return ctx.literal(&cql.Term{Kind: kind, Text: s}, ty, "")
	}
	switch ty.code {
	case primitive.DataTypeCodeInt, primitive.DataTypeCodeBigint, primitive.DataTypeCodeCounter, primitive.DataTypeCodeSmallint,
		primitive.DataTypeCodeTinyint, primitive.DataTypeCodeVarint:
		return lit(cql.TermInteger)
	case primitive.DataTypeCodeFloat, primitive.DataTypeCodeDouble, primitive.DataTypeCodeDecimal:
		return lit(cql.TermFloat)
	case primitive.DataTypeCodeVarchar, primitive.DataTypeCodeAscii, primitive.DataTypeCodeInet:
		return lit(cql.TermString)
	case primitive.DataTypeCodeBoolean:
		switch {
		case strings.EqualFold(s, "true"):
			return []byte{1}, nil
		case strings.EqualFold(s, "false"):
			return []byte{0}, nil
		}
		return nil, invalid("Unable to make boolean from '%s'", s)
	case primitive.DataTypeCodeUuid, primitive.DataTypeCodeTimeuuid:
		return lit(cql.TermUUID)
	case primitive.DataTypeCodeTimestamp, primitive.DataTypeCodeDate, primitive.DataTypeCodeTime:
		if strings.TrimLeft(strings.TrimPrefix(s, "-"), "0123456789") == "" {
			return lit(cql.TermInteger)
		}
		return lit(cql.TermString)
	case primitive.DataTypeCodeDuration:
		return lit(cql.TermDuration)
	}
	h := s
	if len(h)%2 == 1 {
		h = "0" + h
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, invalid("cannot parse '%s' as hex bytes", s)
	}
	return b, validateValue(ty, b)
}
