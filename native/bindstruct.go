package native

import (
	"fmt"
	"reflect"
)

// BindStruct returns a statement executing p with the values of the fields of v, a struct
// or a pointer to one, taken by bind marker name: each of p's bind markers (Params: the
// column a marker sets or compares, or the name of a named marker, ":name") takes the field
// that RowToStruct would fill from a column of that name (the `cql:"name"` tag, or else the
// field's name, or else the field's name case-insensitively when no marker has that field's
// exact name, an error when two fields match so; the fields of untagged embedded structs promoted; `cql:"-"`
// and unexported fields ignored). A marker whose name two markers share (a column compared
// twice, "a > ? AND a < ?") takes the same field twice: bind such statements with Bind. A
// LIMIT marker is named "[limit]" and a token marker "partition key token"; tag a field
// with those names to bind them.
//
// The fields are read when BindStruct is called, as Bind's arguments are: assigning a field
// afterwards does not change the statement (the elements of a slice or map field are shared,
// as with Bind). It fails, with a *BindError naming the marker, when v is not a struct or a
// non-nil pointer to one, when no field matches a marker, or when the matching field lies in
// an embedded struct reached through a nil pointer (bind nil or Unset by name with Bind and
// Named instead). Fields without a marker are ignored. The values' types are checked
// against the markers' when the statement is executed, as with Bind.
func BindStruct(p *Prepared, v any) (Statement, error) {
	if p == nil || p.m() == nil {
		return Statement{}, errUnusablePrepared
	}
	m := p.m()
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return Statement{}, &BindError{Statement: p.cql, Index: -1, Err: fmt.Errorf("BindStruct needs a struct or a non-nil pointer to one, not a nil %s", rv.Type())}
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		what := "nil"
		if v != nil {
			what = reflect.TypeOf(v).String()
		}
		return Statement{}, &BindError{Statement: p.cql, Index: -1, Err: fmt.Errorf("BindStruct needs a struct or a non-nil pointer to one, not %s", what)}
	}
	rt := rv.Type()
	values := make([]any, len(m.params))
	for i, prm := range m.params {
		field, err := structFieldFor(rv, prm.Name, m.params)
		if err != nil {
			return Statement{}, &BindError{Statement: p.cql, Index: i, Name: prm.Name, Type: prm.Type, Err: fmt.Errorf("%s: %w", rt, err)}
		}
		values[i] = field.Interface()
	}
	return p.Bind(values...), nil
}

// structFieldFor returns the field of struct value rv that RowToStruct would fill from a
// column called name, of the columns params (the statement's bind markers), without
// allocating anything in rv: a field in an embedded struct reached through a nil pointer is
// an error.
func structFieldFor(rv reflect.Value, name string, params []Column) (reflect.Value, error) {
	path, err := fieldPathFor(rv.Type(), name, params)
	if err != nil {
		return reflect.Value{}, err
	}
	if path == nil {
		return reflect.Value{}, fmt.Errorf("no field for this bind marker")
	}
	v, ok := fieldAt(rv, path, false)
	if !ok {
		return reflect.Value{}, fmt.Errorf("the field for this bind marker is in the embedded %s, which is nil", v.Type())
	}
	return v, nil
}
