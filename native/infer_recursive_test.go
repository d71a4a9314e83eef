package native_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

type (
	recursiveMap   map[string]recursiveMap
	recursiveSlice []recursiveSlice
	recursivePtr   *recursivePtr
)

// A simple statement's value of a recursive Go type (a tree of maps, of slices, a pointer to
// itself) has no CQL type to infer: binding it fails with a *BindError naming the type, where
// the inference followed the type into itself until the goroutine's stack overflowed, a fatal
// error that ends the program.
func TestSimpleStatementRecursiveTypeIsABindError(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	for _, v := range []any{recursiveMap{"a": nil}, recursiveSlice{nil}, recursivePtr(nil), []recursiveMap{nil}} {
		_, err := s.Execute(ctxT(t), native.Query("SELECT * FROM system.local WHERE key = ?", v))
		var be *native.BindError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), "cannot infer") {
			t.Errorf("%T: %v, want a *BindError saying the type cannot be inferred", v, err)
		}
	}
}
