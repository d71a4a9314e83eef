package gocql

import (
	"net"
	"reflect"
	"time"
)

func marshalText(info TypeInfo, value interface{}) ([]byte, error) {
	switch v := value.(type) {
	case unsetColumn, nil:
		return nil, nil
	case string:
		return []byte(v), nil
	case []byte:
		return v, nil
	}
	rv := reflect.ValueOf(value)
	switch {
	case rv.Kind() == reflect.String:
		return []byte(rv.String()), nil
	case rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8:
		return rv.Bytes(), nil
	}
	return nil, marshalErrorf("can not marshal %T into %s", value, info)
}

func unmarshalText(info TypeInfo, data []byte, value interface{}) error {
	switch v := value.(type) {
	case *string:
		*v = string(data)
		return nil
	case *[]byte:
		if data == nil {
			*v = nil
		} else {
			// gocql reuses the destination's buffer.
			*v = append((*v)[:0], data...)
		}
		return nil
	}
	rv, err := pointerTarget(value)
	if err != nil {
		return err
	}
	switch {
	case rv.Kind() == reflect.String:
		rv.SetString(string(data))
		return nil
	case rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8:
		var b []byte
		if data != nil {
			b = append([]byte{}, data...)
		}
		rv.SetBytes(b)
		return nil
	}
	return unmarshalErrorf("can not unmarshal %s into %T", info, value)
}

func marshalUUID(info TypeInfo, value interface{}) ([]byte, error) {
	switch v := value.(type) {
	case unsetColumn, nil:
		return nil, nil
	case UUID:
		return v.Bytes(), nil
	case [16]byte:
		return v[:], nil
	case []byte:
		if len(v) != 16 {
			return nil, marshalErrorf("can not marshal []byte %d bytes long into %s, must be exactly 16 bytes long", len(v), info)
		}
		return v, nil
	case string:
		u, err := ParseUUID(v)
		if err != nil {
			return nil, err
		}
		return u[:], nil
	}
	return nil, marshalErrorf("can not marshal %T into %s", value, info)
}

func unmarshalUUID(info TypeInfo, data []byte, value interface{}) error {
	if len(data) == 0 {
		switch v := value.(type) {
		case *string:
			*v = ""
		case *[]byte:
			*v = nil
		case *UUID:
			*v = UUID{}
		default:
			return unmarshalErrorf("can not unmarshal X %s into %T", info, value)
		}
		return nil
	}
	if len(data) != 16 {
		return unmarshalErrorf("unable to parse UUID: UUIDs must be exactly 16 bytes long")
	}
	var u UUID
	copy(u[:], data)
	switch v := value.(type) {
	case *[16]byte:
		*v = u
	case *UUID:
		*v = u
	case *string:
		*v = u.String()
	case *[]byte:
		*v = u[:]
	default:
		return unmarshalErrorf("can not unmarshal X %s into %T", info, value)
	}
	return nil
}

func unmarshalTimeUUID(info TypeInfo, data []byte, value interface{}) error {
	v, ok := value.(*time.Time)
	if !ok {
		return unmarshalUUID(info, data, value)
	}
	u, err := UUIDFromBytes(data)
	if err != nil {
		return err
	}
	if u.Version() != 1 {
		return unmarshalErrorf("invalid timeuuid")
	}
	*v = u.Time()
	return nil
}

// inetBytes returns the 4-byte form of an IPv4 address and the 16-byte form
// otherwise (nil for a malformed net.IP), so that the server does not store
// IPv4 addresses as IPv4-mapped IPv6.
func inetBytes(ip net.IP) []byte {
	if v4 := ip.To4(); v4 != nil {
		return v4
	}
	return ip.To16()
}

func marshalInet(info TypeInfo, value interface{}) ([]byte, error) {
	switch v := value.(type) {
	case unsetColumn, nil:
		return nil, nil
	case net.IP:
		return inetBytes(v), nil
	case string:
		ip := net.ParseIP(v)
		if ip == nil {
			return nil, marshalErrorf("cannot marshal. invalid ip string %s", v)
		}
		return inetBytes(ip), nil
	}
	return nil, marshalErrorf("cannot marshal %T into %s", value, info)
}

func unmarshalInet(info TypeInfo, data []byte, value interface{}) error {
	switch v := value.(type) {
	case *net.IP:
		if n := len(data); n != 4 && n != 16 {
			return unmarshalErrorf("cannot unmarshal %s into %T: invalid sized IP: got %d bytes not 4 or 16", info, value, n)
		}
		ip := net.IP(append([]byte{}, data...))
		if v4 := ip.To4(); v4 != nil {
			*v = v4
		} else {
			*v = ip
		}
		return nil
	case *string:
		if len(data) == 0 {
			*v = ""
			return nil
		}
		ip := net.IP(data)
		if v4 := ip.To4(); v4 != nil {
			*v = v4.String()
		} else {
			*v = ip.String()
		}
		return nil
	}
	return unmarshalErrorf("cannot unmarshal %s into %T", info, value)
}
