package gocql

// Marshaler is implemented by values that encode themselves as CQL values.
// Marshal calls MarshalCQL instead of applying its own rules.
type Marshaler interface {
	MarshalCQL(info TypeInfo) ([]byte, error)
}

// Unmarshaler is implemented by values that decode themselves from CQL
// values. Unmarshal calls UnmarshalCQL instead of applying its own rules.
type Unmarshaler interface {
	UnmarshalCQL(info TypeInfo, data []byte) error
}

// UDTMarshaler is implemented by values that encode a user-defined type field
// by field: Marshal calls MarshalUDT once per field of the type, in the order
// of the type's definition. As in gocql, implement it on a value receiver.
type UDTMarshaler interface {
	// MarshalUDT returns the encoding of the field called name, of type info
	// (for example by calling Marshal).
	MarshalUDT(name string, info TypeInfo) ([]byte, error)
}

// UDTUnmarshaler is implemented by values that decode a user-defined type
// field by field: Unmarshal calls UnmarshalUDT once per field present in the
// data, in the order of the type's definition.
type UDTUnmarshaler interface {
	// UnmarshalUDT decodes data, the field called name of type info (for
	// example by calling Unmarshal).
	UnmarshalUDT(name string, info TypeInfo, data []byte) error
}
