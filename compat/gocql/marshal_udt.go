package gocql

import (
	"reflect"
)

func marshalUDT(info TypeInfo, value interface{}) ([]byte, error) {
	udt, ok := info.(UDTTypeInfo)
	if !ok {
		return nil, marshalErrorf("cannot marshal %T into %s: TypeInfo %T is not a UDTTypeInfo", value, info, info)
	}
	switch v := value.(type) {
	case unsetColumn:
		return nil, unmarshalErrorf("invalid request: UnsetValue is unsupported for user defined types")
	case UDTMarshaler:
		var buf []byte
		for _, e := range udt.Elements {
			data, err := v.MarshalUDT(e.Name, e.Type)
			if err != nil {
				return nil, err
			}
			buf = appendCQLBytes(buf, data)
		}
		return buf, nil
	case map[string]interface{}:
		var buf []byte
		for _, e := range udt.Elements {
			var data []byte
			if field, ok := v[e.Name]; ok {
				var err error
				if data, err = Marshal(e.Type, field); err != nil {
					return nil, err
				}
			}
			buf = appendCQLBytes(buf, data)
		}
		return buf, nil
	}

	rv := reflect.ValueOf(value)
	if rv.Kind() != reflect.Struct {
		return nil, marshalErrorf("cannot marshal %T into %s", value, info)
	}
	tagged := taggedFields(rv)
	var buf []byte
	for _, e := range udt.Elements {
		f, ok := tagged[e.Name]
		if !ok {
			f = fieldByName(rv, e.Name)
			if _, found := rv.Type().FieldByName(e.Name); found && !f.IsValid() {
				// gocql panics reaching the field through a nil embedded
				// pointer.
				return nil, marshalErrorf("cannot marshal %T into %s: field %v is behind a nil embedded pointer", value, info, e.Name)
			}
		}
		var data []byte
		if f.IsValid() && f.CanInterface() {
			var err error
			if data, err = Marshal(e.Type, f.Interface()); err != nil {
				return nil, err
			}
		}
		buf = appendCQLBytes(buf, data)
	}
	return buf, nil
}

// taggedFields maps the `cql` tags of a struct's own fields to the fields.
func taggedFields(rv reflect.Value) map[string]reflect.Value {
	t := rv.Type()
	fields := make(map[string]reflect.Value, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		if tag := t.Field(i).Tag.Get("cql"); tag != "" {
			fields[tag] = rv.Field(i)
		}
	}
	return fields
}

// fieldByName is reflect.Value.FieldByName (promoted fields included) that
// returns the zero Value instead of panicking when the path goes through a
// nil embedded pointer.
func fieldByName(rv reflect.Value, name string) reflect.Value {
	sf, ok := rv.Type().FieldByName(name)
	if !ok {
		return reflect.Value{}
	}
	f, err := rv.FieldByIndexErr(sf.Index)
	if err != nil {
		return reflect.Value{}
	}
	return f
}

// udtFieldData splits the next field off UDT data. done reports that the
// data ended, which leaves the remaining fields untouched.
func udtFieldData(info UDTTypeInfo, data []byte, i int) (field, rest []byte, done bool, err error) {
	if len(data) == 0 {
		return nil, nil, true, nil
	}
	if len(data) < 4 {
		return nil, nil, false, unmarshalErrorf("can not unmarshal %s: field [%d]%s: unexpected eof", info, i, info.Elements[i].Name)
	}
	field, rest, err = readCQLBytes(data, "udt field "+info.Elements[i].Name)
	return field, rest, false, err
}

func unmarshalUDT(info TypeInfo, data []byte, value interface{}) error {
	udt, isUDT := info.(UDTTypeInfo)
	notUDT := func() error {
		return unmarshalErrorf("can not unmarshal %s into %T: TypeInfo %T is not a UDTTypeInfo", info, value, info)
	}
	switch v := value.(type) {
	case UDTUnmarshaler:
		if !isUDT {
			return notUDT()
		}
		for i, e := range udt.Elements {
			field, rest, done, err := udtFieldData(udt, data, i)
			if done || err != nil {
				return err
			}
			data = rest
			if nilValueReceiver(reflect.ValueOf(value), udtUnmarshalerType) {
				// gocql calls the method through the nil pointer and panics.
				return unmarshalErrorf("can not unmarshal %s into nil pointer %T", info, value)
			}
			if err := v.UnmarshalUDT(e.Name, e.Type, field); err != nil {
				return err
			}
		}
		return nil
	case *map[string]interface{}:
		if !isUDT {
			return notUDT()
		}
		if data == nil {
			*v = nil
			return nil
		}
		m := make(map[string]interface{})
		*v = m
		for i, e := range udt.Elements {
			if len(data) == 0 {
				return nil
			}
			if len(data) < 4 {
				return unmarshalErrorf("can not unmarshal %s: field [%d]%s: unexpected eof", info, i, e.Name)
			}
			typ, err := goType(e.Type)
			if err != nil {
				return unmarshalErrorf("can not unmarshal %s: %v", info, err)
			}
			field, rest, _, err := udtFieldData(udt, data, i)
			if err != nil {
				return err
			}
			data = rest
			val := reflect.New(typ)
			if err := Unmarshal(e.Type, field, val.Interface()); err != nil {
				return err
			}
			m[e.Name] = val.Elem().Interface()
		}
		return nil
	}

	rv, err := pointerTarget(value)
	if err != nil {
		return err
	}
	if rv.Kind() != reflect.Struct {
		return unmarshalErrorf("cannot unmarshal %s into %T", info, value)
	}
	if len(data) == 0 {
		rv.Set(reflect.Zero(rv.Type()))
		return nil
	}
	if !isUDT {
		return notUDT()
	}
	tagged := taggedFields(rv)
	for i, e := range udt.Elements {
		field, rest, done, err := udtFieldData(udt, data, i)
		if done || err != nil {
			return err
		}
		data = rest
		f, ok := tagged[e.Name]
		if !ok {
			if _, found := rv.Type().FieldByName(e.Name); !found {
				continue // a UDT field the struct does not have
			}
			f = fieldByName(rv, e.Name)
		}
		if !f.IsValid() || !f.CanAddr() || !f.CanInterface() {
			return unmarshalErrorf("cannot unmarshal %s into %T: field %v is not valid", info, value, e.Name)
		}
		if err := Unmarshal(e.Type, field, f.Addr().Interface()); err != nil {
			return err
		}
	}
	return nil
}
