package native

import (
	"fmt"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// decodeCell decodes one cell (nil for NULL) of type t into dest, a pointer.
func decodeCell(t *cqltype.Type, cell []byte, dest any) error {
	return fmt.Errorf("decoding %s into %T: %w", t, dest, ErrNotImplemented)
}
