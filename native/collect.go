package native

import (
	"errors"
	"fmt"
	"iter"
	"reflect"
	"strings"
	"sync"
)

// RowToFunc converts a row to a T, for Collect and CollectOne.
type RowToFunc[T any] func(Row) (T, error)

// Collect converts every row yielded by rows (Session.Iter, Result.All) with to and
// returns them; it stops at the first error.
func Collect[T any](rows iter.Seq2[Row, error], to RowToFunc[T]) ([]T, error) {
	var out []T
	for row, err := range rows {
		if err != nil {
			return out, err
		}
		v, err := to(row)
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

// CollectOne converts the first row yielded by rows with to; it returns ErrNotFound when
// there is none. It stops the iteration after the first row.
func CollectOne[T any](rows iter.Seq2[Row, error], to RowToFunc[T]) (T, error) {
	var zero T
	for row, err := range rows {
		if err != nil {
			return zero, err
		}
		return to(row)
	}
	return zero, ErrNotFound
}

// errEmptyPageMoreFollow is ScanOne's error for an empty page that more pages follow.
var errEmptyPageMoreFollow = errors.New("native: ScanOne: the page has no row but more pages follow, which ScanOne does not fetch (use CollectOne over Session.Iter)")

// RowTo decodes a one-column row into a T (with Get's allocation-free fast paths).
func RowTo[T any](row Row) (T, error) {
	if row.Len() != 1 {
		var zero T
		return zero, &ScanError{Index: -1, Err: fmt.Errorf("RowTo needs one column, the row has %d", row.Len())}
	}
	return Get[T](row, 0)
}

// ScanOne decodes the single column of the first row of res into a T. It returns
// ErrNotFound when the page is empty and the last one. A server may answer a page without
// rows that more pages follow (Cassandra does, for a query filtering many rows or reading past
// tombstones): ScanOne, which fetches nothing, then fails with an error that says so and does
// not match ErrNotFound (read such a query with CollectOne over Session.Iter).
func ScanOne[T any](res *Result) (T, error) {
	row, ok := res.First()
	if !ok {
		var zero T
		if res.HasMorePages() {
			return zero, errEmptyPageMoreFollow
		}
		return zero, ErrNotFound
	}
	if row.Len() != 1 {
		var zero T
		return zero, &ScanError{Index: -1, Err: fmt.Errorf("ScanOne needs one column, the row has %d", row.Len())}
	}
	return Get[T](row, 0)
}

// RowToStruct decodes a row into a new struct T, matching each column to the field whose
// `cql:"name"` tag equals the column name, or else whose name equals it case-insensitively.
// The fields of an embedded struct (or pointer to struct, allocated when a column needs it)
// without a tag are matched as if they were T's own, after T's own, as encoding/json promotes
// them (a shallower field wins over a deeper one; between two at the same depth, the first in
// field order, as sqlx's and gocqlx's mappers choose, where encoding/json would ignore both);
// an embedded struct with a tag is one field. A column that no field, T's own or
// promoted, receives is decoded into the untagged embedded struct of its name as a whole (a
// UDT's struct). A column without a matching field is an error; fields without a column keep
// their zero value. Fields tagged `cql:"-"` and unexported fields are ignored.
func RowToStruct[T any](row Row) (T, error) {
	var v T
	rv := reflect.ValueOf(&v).Elem()
	if rv.Kind() != reflect.Struct {
		return v, &ScanError{Index: -1, Err: fmt.Errorf("RowToStruct needs a struct type, not %s", rv.Type())}
	}
	rt := rv.Type()
	for i, c := range row.Columns() {
		var field reflect.Value
		if top := topFieldFor(rt, c.Name); top >= 0 {
			field = rv.Field(top)
		} else if path := promotedField(rt, c.Name); path != nil {
			field, _ = fieldAt(rv, path, true)
		} else if emb := embeddedFieldNamed(rt, c.Name); emb >= 0 {
			field = rv.Field(emb)
		} else {
			return v, &ScanError{Column: c.Name, Index: i, Type: c.Type, Err: fmt.Errorf("%s has no field for this column", rt)}
		}
		if err := decodeCell(c.Type, row.Raw(i), field.Addr().Interface()); err != nil {
			return v, &ScanError{Column: c.Name, Index: i, Type: c.Type, Err: err}
		}
	}
	return v, nil
}

// topFieldFor returns the index of the field of struct type rt itself (not of a struct it
// embeds) that receives column name: the first whose tag equals name, or else the first
// whose name equals it case-insensitively; -1 when none does.
func topFieldFor(rt reflect.Type, name string) int {
	fold := -1
	for i := range rt.NumField() {
		f := rt.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("cql"), ",")
		switch {
		case tag == "-":
			continue
		case f.Anonymous && tag == "" && embeddedStruct(f.Type) != nil:
			continue // its fields are promoted (promotedFieldFor)
		case tag != "":
			if tag == name {
				return i
			}
		case strings.EqualFold(f.Name, name) && fold < 0:
			fold = i
		}
	}
	return fold
}

// promotedPaths memoizes promotedFieldFor, a pure function of its arguments, by struct type
// and then column name (as encoding/json caches its field lists by type): the search
// allocates, and RowToStruct runs it for every row.
var promotedPaths sync.Map // reflect.Type -> *typePaths

// typePaths holds promotedFieldFor's answers for one struct type, by column name (nil: no
// such field).
type typePaths struct {
	mu    sync.RWMutex
	paths map[string][]int
}

// promotedField is promotedFieldFor, memoized.
func promotedField(rt reflect.Type, name string) []int {
	v, ok := promotedPaths.Load(rt)
	if !ok {
		v, _ = promotedPaths.LoadOrStore(rt, &typePaths{paths: make(map[string][]int)})
	}
	tp := v.(*typePaths)
	tp.mu.RLock()
	path, ok := tp.paths[name]
	tp.mu.RUnlock()
	if ok {
		return path
	}
	path = promotedFieldFor(rt, name)
	tp.mu.Lock()
	tp.paths[name] = path
	tp.mu.Unlock()
	return path
}

// promotedFieldFor returns the index path (reflect.Value.FieldByIndex) of the field of a
// struct embedded in rt, untagged, that receives column name, or nil: depth by depth, a
// tagged field, then a field by name, as topFieldFor, before the structs embedded deeper. A
// struct type is looked into once; an embedded pointer to an unexported struct type, which
// reflect cannot allocate, is not.
func promotedFieldFor(rt reflect.Type, name string) []int {
	var level [][]int
	seen := map[reflect.Type]bool{rt: true}
	embedded := func(st reflect.Type, at []int) {
		for i := range st.NumField() {
			f := st.Field(i)
			if tag, _, _ := strings.Cut(f.Tag.Get("cql"), ","); !f.Anonymous || tag != "" {
				continue // a tagged embedded struct is one field (topFieldFor)
			}
			et := embeddedStruct(f.Type)
			if et == nil || seen[et] || (!f.IsExported() && f.Type.Kind() == reflect.Pointer) {
				continue
			}
			seen[et] = true
			level = append(level, append(append([]int(nil), at...), i))
		}
	}
	embedded(rt, nil)
	for depth := 0; len(level) > 0 && depth < 16; depth++ {
		var fold []int
		current := level
		level = nil
		for _, at := range current {
			st := embeddedStruct(rt.FieldByIndex(at).Type)
			if top := topFieldFor(st, name); top >= 0 {
				path := append(append([]int(nil), at...), top)
				if tag, _, _ := strings.Cut(st.Field(top).Tag.Get("cql"), ","); tag == name {
					return path
				}
				if fold == nil {
					fold = path
				}
			}
			embedded(st, at)
		}
		if fold != nil {
			return fold
		}
	}
	return nil
}

// embeddedFieldNamed returns the index of the exported untagged struct (or pointer to struct)
// that struct type rt embeds whose name equals column name case-insensitively, -1 when none
// does: a column that no field, T's own or promoted, receives is decoded into the embedded
// struct of its name as a whole (a UDT's struct, a time.Time), as before embedded structs
// were looked into.
func embeddedFieldNamed(rt reflect.Type, name string) int {
	for i := range rt.NumField() {
		f := rt.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("cql"), ",")
		if f.Anonymous && f.IsExported() && tag == "" && embeddedStruct(f.Type) != nil && strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// embeddedStruct returns the struct type of an embedded field of type t (a struct or a
// pointer to one), or nil.
func embeddedStruct(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// fieldAt returns the field of struct value v at path. A nil pointer to an embedded struct on
// the way is allocated when alloc is set (RowToStruct); otherwise (BindStruct, which must not
// change the caller's value) the walk stops there and fieldAt returns that nil pointer and
// false.
func fieldAt(v reflect.Value, path []int, alloc bool) (reflect.Value, bool) {
	for i, x := range path {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !alloc {
					return v, false
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}
