// Package cqltype holds the CQL type descriptors (every native type, list, set,
// map, tuple, UDT, vector, duration, counter, varint, decimal, inet, date, time)
// and the value codec that converts between Go values and their protocol v4
// encoding, with allocation-free fast paths for common types.
//
// # Types
//
// A *Type describes a CQL type. ParseOption reads one from the [option] bytes
// of result and prepared metadata, AppendOption writes it, and String renders it
// in CQL syntax ("map<text, frozen<list<int>>>"). Vectors travel as custom types
// named org.apache.cassandra.db.marshal.VectorType(<element class>, <dimension>);
// ParseOption turns them into KindVector types (and the DurationType class that
// Cassandra sends for duration columns under protocol v4 into KindDuration).
// ParseClass and Type.Class convert between Types and Cassandra class names,
// ParseCQL reads CQL syntax as found in system_schema, and Type.Equal compares
// types.
//
// # Encoding and decoding
//
// Append(dst, t, v) appends one protocol [value] (a 4-byte length and the body)
// straight into a frame buffer: length -1 for NULL, -2 for Unset. Marshal returns
// the body alone. Decode(t, b, &dst) decodes a body, b nil meaning NULL, into a
// pointer. Both try a type switch on the common Go types before falling back to
// reflection. Encoding int32, int, int64, string, []byte, bool, float64,
// time.Time or UUID values, lists and sets from []string, []int, []int32 or
// []int64, and float vectors from []float32 allocates nothing; decoding into
// *int, *int32, *int64, *string, *[]byte, *bool, *float64, *time.Time or *UUID
// allocates nothing beyond the decoded string or slice itself. When the column
// type is known, AppendInt32, AppendString, DecodeInt64, DecodeString and the
// other Append*/Decode* functions skip even the type switch.
//
// NULL: a nil interface, nil pointer, nil slice or nil map encodes as NULL.
// Decoding NULL sets a pointer, slice, map or interface target to nil and any
// other target to its zero value. For every type but text, varchar, ascii, blob
// and custom, the legacy empty value (length 0) decodes like NULL. Unset (the
// package variable) encodes as "not set" and leaves the column untouched; it is
// only allowed as a whole bound value.
//
// Pointers are followed on both sides (a nil *T target is allocated). Named types
// work through their underlying kind (type Celsius float64). Types implementing
// Marshaler or Unmarshaler encode and decode themselves, also inside collections,
// tuples and UDTs; a MarshalCQL with a pointer receiver is called for a value of the
// type too (on a copy when the value is not addressable).
// Decoded strings and slices never alias the input bytes.
//
// # Go mapping
//
// Encode lists the Go types accepted for a CQL type, Decode the targets it can
// be decoded into (besides *any), and "any" the Go type a *any target receives.
// Integers are range-checked in both directions and floats must convert exactly:
// a value that does not fit fails with ErrOutOfRange instead of being truncated.
//
//	CQL type          Encode from                                   Decode into                           any
//	----------------  --------------------------------------------  ------------------------------------  --------------
//	int               any Go integer type within int32              any Go integer type, big.Int          int32
//	bigint, counter   any Go integer type within int64              any Go integer type, big.Int          int64
//	smallint          any Go integer type within int16              any Go integer type, big.Int          int16
//	tinyint           any Go integer type within int8               any Go integer type, big.Int          int8
//	varint            *big.Int, big.Int, any Go integer type        big.Int, any Go integer type          *big.Int
//	decimal           Decimal, *Decimal, *inf.Dec, inf.Dec          Decimal, inf.Dec                      Decimal
//	float             float32, float64 if exactly representable     float32, float64                      float32
//	double            float64, float32                              float64, float32 if exact             float64
//	boolean           bool                                          bool                                  bool
//	text, varchar     string, []byte                                string, []byte                        string
//	ascii             string, []byte (bytes must be < 0x80)         string, []byte                        string
//	blob              []byte, string                                []byte, string                        []byte
//	custom            []byte (the raw body)                         []byte                                []byte
//	timestamp         time.Time, int64 milliseconds                 time.Time (UTC), int64 milliseconds   time.Time
//	date              Date, time.Time (its calendar day)            Date, time.Time (UTC midnight)        Date
//	time              time.Duration, int64 ns, 0..86399999999999    time.Duration                         time.Duration
//	uuid, timeuuid    UUID, [16]byte, []byte, string                UUID, [16]byte, []byte, string        UUID
//	inet              net.IP, netip.Addr, string                    net.IP, netip.Addr, string            netip.Addr
//	duration          Duration, time.Duration                       Duration, time.Duration               Duration
//	list, set         slice, array                                  slice, array of the same length       []any
//	set               also map[K]struct{}, map[K]bool (true keys)   also map[K]struct{}, map[K]bool
//	map               map[K]V                                       map[K]V                               map[any]any
//	tuple             struct, slice or array of the tuple's arity   struct, slice, array                  []any
//	UDT               struct, map[string]V                          struct, map[string]V                  map[string]any
//	vector            slice or array of Dim elements                slice, array of Dim elements          []float32, []float64, []any
//
// Details:
//   - timestamp drops sub-millisecond precision (rounding toward the past); a
//     decoded timestamp is in UTC. The zero time.Time is encoded as the instant
//     it is (0001-01-01), not as NULL: use a *time.Time for a nullable column.
//   - Date counts days from 1970-01-01; encoding a time.Time as a date takes its
//     calendar day in its own location and ignores the clock.
//   - timeuuid only accepts version 1 UUIDs. UUID has String, ParseUUID, Time,
//     TimeUUIDAt, NewTimeUUID and NewRandomUUID.
//   - inet encodes IPv4 (also IPv4 in a 16-byte net.IP) as 4 bytes; the zero
//     netip.Addr encodes as NULL.
//   - duration requires months, days and nanoseconds not to mix signs; decoding
//     into time.Duration fails when months or days are set.
//   - Collection, map and vector elements cannot be NULL (Cassandra rejects
//     them); tuple elements and UDT fields can.
//   - A Go map whose distinct keys encode to one CQL key (two times in the same
//     millisecond, a UUID spelt in two cases, int32(7) and int64(7) in a
//     map[any]V) fails with ErrInvalidValue: the server would keep one of the
//     entries, picked by Go's random map order.
//   - A struct maps to a tuple by its exported fields in order, and to a UDT by
//     field name: the `cql:"name"` tag, else the lower-cased Go field name;
//     `cql:"-"` skips a field. The fields of a struct embedded without a tag (by
//     value, or by pointer to an exported struct type) are promoted as package
//     native's RowToStruct promotes them for columns: a shallower field wins over
//     a deeper one, at one depth a tagged field over an untagged one, then the
//     first in field order; two untagged fields of different names (Foo, FOO) for
//     one UDT field are an error. An embedded struct with a tag is one field; an
//     untagged one takes the UDT field of its lower-cased name as a whole when no
//     field does. Decoding allocates a nil embedded pointer when a UDT field
//     needs it; encoding fails on one, as BindStruct does. Encoding fails if a
//     struct field, own or promoted (outside an embedded struct taken whole), has
//     no UDT field; UDT fields the struct lacks are written as NULL, and skipped
//     on decoding (so a type can gain fields with ALTER TYPE).
//   - A map[any]any target (and thus *any for a map) cannot hold keys that Go
//     cannot hash, such as blobs; decode such maps into a typed map.
//   - vector elements of fixed size (int, bigint, float, double, boolean,
//     timestamp, uuid, timeuuid and vectors of those) are packed; others are
//     prefixed by their length as an unsigned vint, as Cassandra 5 does.
//
// # Errors
//
// Every encoding and decoding error is a *ValueError naming the CQL type of the
// whole value, the path to the failing element inside tuples, collections, UDTs
// and vectors, and the Go type, and wrapping ErrUnsupportedGoType,
// ErrOutOfRange, ErrInvalidValue or ErrMalformedValue:
//
//	map<text, frozen<tuple<text, int>>>: value["a"].1: cannot encode int64 9999999999 as int: out of range
//
// Callers add the statement, the parameter or the column.
package cqltype
