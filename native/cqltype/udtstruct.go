package cqltype

import (
	"reflect"
	"strings"
	"sync"
)

// udtStructField is a field of a Go struct type that may receive a UDT field: one of the
// struct's own, or one promoted from an untagged struct it embeds.
type udtStructField struct {
	name   string // the UDT field it maps to: its tag, else its lower-cased Go name
	goName string // its Go name
	path   []int  // its index path (reflect.Value.FieldByIndex)
	depth  int    // 0 for the struct's own fields, 1 for those of a struct it embeds, ...
	tagged bool   // whether it has a `cql:"name"` tag
}

// udtStruct is how a struct type maps to UDTs, whatever their fields.
type udtStruct struct {
	fields []udtStructField // the fields that may receive a UDT field, by depth, then in field order
	whole  []udtStructField // the exported untagged structs the struct itself embeds, each named by its lower-cased Go name
}

// udtStructs memoizes buildUDTStruct, a pure function of its argument.
var udtStructs sync.Map // reflect.Type -> *udtStruct

// udtStructOf returns how struct type st maps to UDTs.
func udtStructOf(st reflect.Type) *udtStruct {
	if v, ok := udtStructs.Load(st); ok {
		return v.(*udtStruct)
	}
	v, _ := udtStructs.LoadOrStore(st, buildUDTStruct(st))
	return v.(*udtStruct)
}

// buildUDTStruct lists the fields of struct type st that may receive a UDT field, as
// package native's RowToStruct does for columns: st's own exported fields, and depth by
// depth those of the structs it embeds without a tag (by value, or by pointer to an
// exported struct type, which reflect can allocate), each struct type looked into once. An
// embedded struct with a tag is one field; `cql:"-"` skips a field, embedded or not.
func buildUDTStruct(st reflect.Type) *udtStruct {
	us := new(udtStruct)
	seen := map[reflect.Type]bool{st: true}
	level := [][]int{nil} // the paths of the structs to look into at this depth
	for depth := 0; len(level) > 0 && depth <= 16; depth++ {
		var next [][]int
		for _, at := range level {
			t := st
			if at != nil {
				t = embeddedStructType(st.FieldByIndex(at).Type)
			}
			for i := range t.NumField() {
				f := t.Field(i)
				tag, _, _ := strings.Cut(f.Tag.Get("cql"), ",")
				if tag == "-" {
					continue
				}
				path := append(append([]int(nil), at...), i)
				if et := embeddedStructType(f.Type); f.Anonymous && tag == "" && et != nil {
					if !seen[et] && (f.IsExported() || f.Type.Kind() != reflect.Pointer) {
						seen[et] = true
						next = append(next, path)
					}
					if depth == 0 && f.IsExported() {
						us.whole = append(us.whole, udtStructField{name: strings.ToLower(f.Name), goName: f.Name, path: path})
					}
					continue
				}
				if !f.IsExported() {
					continue
				}
				name := tag
				if name == "" {
					name = strings.ToLower(f.Name)
				}
				us.fields = append(us.fields, udtStructField{name: name, goName: f.Name, path: path, depth: depth, tagged: tag != ""})
			}
		}
		level = next
	}
	return us
}

// embeddedStructType returns the struct type of an embedded field of type t (a struct or a
// pointer to one), or nil.
func embeddedStructType(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// pick returns the index path of the struct field that UDT field name maps to, nil when
// none does: at the shallowest depth that has one, the first tagged with name, or else the
// first whose lower-cased Go name is name; two untagged fields of different Go names (Foo
// and FOO) are an error. Failing all, the embedded struct whose lower-cased name is name
// takes the UDT field as a whole.
func (us *udtStruct) pick(name string) ([]int, error) {
	best := -1
	for k := range us.fields {
		f := &us.fields[k]
		if f.name != name {
			continue
		}
		if best >= 0 && f.depth > us.fields[best].depth {
			break
		}
		switch {
		case best < 0, f.tagged && !us.fields[best].tagged:
			best = k
		case !f.tagged && !us.fields[best].tagged && f.goName != us.fields[best].goName:
			return nil, invalid("struct fields %s and %s both map to %q: tag the one meant", us.fields[best].goName, f.goName, name)
		}
	}
	if best >= 0 {
		return us.fields[best].path, nil
	}
	for _, w := range us.whole {
		if w.name == name {
			return w.path, nil
		}
	}
	return nil, nil
}

// check returns an error when a field of struct type st, its own or promoted, maps to a name
// that UDT t does not have (encoding must not drop it silently), unless it lies in an
// embedded struct that takes a UDT field as a whole; an embedded struct with no field to
// promote (a time.Time) is one field, whose name t must have. paths are the struct fields
// for t's fields, as pick returned them.
func (us *udtStruct) check(st reflect.Type, t *Type, paths [][]int) error {
	takenWhole := func(i int) bool { // whether st's field i is an embedded struct taken whole
		for _, p := range paths {
			if len(p) == 1 && p[0] == i && embeddedStructType(st.Field(i).Type) != nil && st.Field(i).Anonymous {
				return true
			}
		}
		return false
	}
	for _, f := range us.fields {
		if udtFieldIndex(t, f.name) < 0 && (f.depth == 0 || !takenWhole(f.path[0])) {
			return invalid("struct field %s maps to %q, which %s does not have", goPath(st, f.path), f.name, t)
		}
	}
	for _, w := range us.whole {
		if udtFieldIndex(t, w.name) >= 0 {
			continue
		}
		promotes := false
		for _, f := range us.fields {
			if f.depth > 0 && f.path[0] == w.path[0] {
				promotes = true
				break
			}
		}
		if !promotes {
			return invalid("struct field %s maps to %q, which %s does not have", w.goName, w.name, t)
		}
	}
	return nil
}

// goPath names the field of struct type st at path as Go code would reach it without
// promotion (Base.X).
func goPath(st reflect.Type, path []int) string {
	var sb strings.Builder
	t := st
	for i, x := range path {
		if i > 0 {
			sb.WriteByte('.')
			t = embeddedStructType(t)
		}
		f := t.Field(x)
		sb.WriteString(f.Name)
		t = f.Type
	}
	return sb.String()
}

// structFieldAt returns the field of struct value v at path. A nil pointer to an embedded
// struct on the way is allocated when alloc is set (decoding into a new value); otherwise
// (encoding, which must not change the caller's value) it is an error.
func structFieldAt(v reflect.Value, path []int, alloc bool) (reflect.Value, error) {
	for i, x := range path {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !alloc {
					return reflect.Value{}, invalid("its struct field is in the embedded %s, which is nil", v.Type())
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}
