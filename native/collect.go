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
// `cql:"name"` tag equals the column name, or else whose name equals it, or else whose name
// equals it case-insensitively when no column of the row has that field's exact name (as a
// named value binds a marker: with columns a and "A", field A receives "A" and not a, which
// then has no field); two fields of different names that match a column in case only (Bb
// and BB for bb) are an error. The fields of an embedded struct (or pointer to struct,
// allocated when a column needs it) without a tag are matched as if they were T's own,
// after T's own, as encoding/json promotes them (a shallower field wins over a deeper one;
// between two at the same depth, the first in field order, as sqlx's and gocqlx's mappers
// choose, where encoding/json would ignore both); an embedded struct with a tag is one
// field. A column that no field, T's own or promoted, receives is decoded into the untagged
// embedded struct of its name (by the same rules) as a whole (a UDT's struct). A column
// without a matching field is an error; fields without a column keep their zero value.
// Fields tagged `cql:"-"` and unexported fields are ignored.
func RowToStruct[T any](row Row) (T, error) {
	var v T
	rv := reflect.ValueOf(&v).Elem()
	if rv.Kind() != reflect.Struct {
		return v, &ScanError{Index: -1, Err: fmt.Errorf("RowToStruct needs a struct type, not %s", rv.Type())}
	}
	rt := rv.Type()
	cols := row.Columns()
	for i, c := range cols {
		path, err := fieldPathFor(rt, c.Name, cols)
		if err != nil {
			return v, &ScanError{Column: c.Name, Index: i, Type: c.Type, Err: fmt.Errorf("%s: %w", rt, err)}
		}
		if path == nil {
			return v, &ScanError{Column: c.Name, Index: i, Type: c.Type, Err: fmt.Errorf("%s has no field for this column", rt)}
		}
		field, _ := fieldAt(rv, path, true)
		if err := decodeCell(c.Type, row.Raw(i), field.Addr().Interface()); err != nil {
			return v, &ScanError{Column: c.Name, Index: i, Type: c.Type, Err: err}
		}
	}
	return v, nil
}

// matchKind says how a field's tag or name matches a column name.
type matchKind uint8

const (
	matchTag   matchKind = iota // its tag equals the name
	matchExact                  // it has no tag and its name equals the name
	matchFold                   // it has no tag and its name equals the name in case only
)

// fieldMatch is a field of a struct type that may receive a column.
type fieldMatch struct {
	path  []int     // its index path (reflect.Value.FieldByIndex)
	depth int       // 0 for the struct's own fields, 1 for those of a struct it embeds, ...
	how   matchKind // how it matches the column name
	name  string    // its Go name
}

// fieldMatches lists, for one struct type and one column name, the fields that may receive
// the column (fields) and the untagged embedded structs that may receive it as a whole
// (whole), both in the order they are preferred before the columns are known.
type fieldMatches struct {
	fields, whole []fieldMatch
}

// structMatches memoizes matchesFor, a pure function of its arguments, by struct type and
// then column name (as encoding/json caches its field lists by type): the search allocates,
// and RowToStruct runs it for every row.
var structMatches sync.Map // reflect.Type -> *typeMatches

// typeMatches holds matchesFor's answers for one struct type, by column name.
type typeMatches struct {
	mu    sync.RWMutex
	names map[string]*fieldMatches
}

// fieldPathFor returns the index path of the field of struct type rt that receives the column
// called name, of the columns cols (the row's columns, or the bind markers): nil when no field
// does, an error when two fields of different names match it in case only. The path is
// shared: do not modify it.
func fieldPathFor(rt reflect.Type, name string, cols []Column) ([]int, error) {
	fm := cachedMatches(rt, name)
	path, err := pickField(fm.fields, cols)
	if path != nil || err != nil {
		return path, err
	}
	return pickField(fm.whole, cols)
}

// cachedMatches is matchesFor, memoized.
func cachedMatches(rt reflect.Type, name string) *fieldMatches {
	v, ok := structMatches.Load(rt)
	if !ok {
		v, _ = structMatches.LoadOrStore(rt, &typeMatches{names: make(map[string]*fieldMatches)})
	}
	tm := v.(*typeMatches)
	tm.mu.RLock()
	fm, ok := tm.names[name]
	tm.mu.RUnlock()
	if ok {
		return fm
	}
	fm = matchesFor(rt, name)
	tm.mu.Lock()
	tm.names[name] = fm
	tm.mu.Unlock()
	return fm
}

// matchesFor returns the fields of struct type rt, its own and those promoted from the
// untagged structs it embeds, whose tag equals column name or whose untagged name equals it,
// case-insensitively, depth by depth (each depth in field order), and the exported untagged
// structs rt itself embeds whose name equals it case-insensitively. A struct type is looked
// into once; an embedded pointer to an unexported struct type, which reflect cannot allocate,
// is not.
func matchesFor(rt reflect.Type, name string) *fieldMatches {
	fm := new(fieldMatches)
	seen := map[reflect.Type]bool{rt: true}
	level := [][]int{nil} // the paths of the structs to look into at this depth
	for depth := 0; len(level) > 0 && depth <= 16; depth++ {
		var next [][]int
		for _, at := range level {
			st := rt
			if at != nil {
				st = embeddedStruct(rt.FieldByIndex(at).Type)
			}
			for i := range st.NumField() {
				f := st.Field(i)
				tag, _, _ := strings.Cut(f.Tag.Get("cql"), ",")
				if tag == "-" {
					continue
				}
				path := append(append([]int(nil), at...), i)
				if et := embeddedStruct(f.Type); f.Anonymous && tag == "" && et != nil {
					// Its fields are promoted, when it can be looked into.
					if !seen[et] && (f.IsExported() || f.Type.Kind() != reflect.Pointer) {
						seen[et] = true
						next = append(next, path)
					}
					if depth == 0 && f.IsExported() && strings.EqualFold(f.Name, name) {
						how := matchFold
						if f.Name == name {
							how = matchExact
						}
						fm.whole = append(fm.whole, fieldMatch{path: path, how: how, name: f.Name})
					}
					continue
				}
				if !f.IsExported() {
					continue
				}
				switch {
				case tag != "":
					if tag == name {
						fm.fields = append(fm.fields, fieldMatch{path: path, depth: depth, how: matchTag, name: f.Name})
					}
				case f.Name == name:
					fm.fields = append(fm.fields, fieldMatch{path: path, depth: depth, how: matchExact, name: f.Name})
				case strings.EqualFold(f.Name, name):
					fm.fields = append(fm.fields, fieldMatch{path: path, depth: depth, how: matchFold, name: f.Name})
				}
			}
		}
		level = next
	}
	return fm
}

// pickField returns the path of the field of ms (a fieldMatches list) that receives a column,
// of the columns cols: at the shallowest depth that has one, the first matching by tag, or
// else the first matching by name, or else the one matching in case only whose own name no
// column has (a field A matches a column a only when there is no column "A"); two such of
// different names are an error. It returns nil when no field receives the column.
func pickField(ms []fieldMatch, cols []Column) ([]int, error) {
	for i := 0; i < len(ms); {
		j := i + 1
		for j < len(ms) && ms[j].depth == ms[i].depth {
			j++
		}
		level := ms[i:j]
		i = j
		for _, how := range [...]matchKind{matchTag, matchExact} {
			for k := range level {
				if level[k].how == how {
					return level[k].path, nil
				}
			}
		}
		var fold *fieldMatch
		for k := range level {
			m := &level[k]
			if m.how != matchFold || hasColumnNamed(cols, m.name) {
				continue
			}
			if fold == nil {
				fold = m
			} else if m.name != fold.name {
				return nil, fmt.Errorf("fields %s and %s both match this name in case only: tag the one meant", fold.name, m.name)
			}
		}
		if fold != nil {
			return fold.path, nil
		}
	}
	return nil, nil
}

// hasColumnNamed reports whether one of cols is called name exactly.
func hasColumnNamed(cols []Column, name string) bool {
	for _, c := range cols {
		if c.Name == name {
			return true
		}
	}
	return false
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
