package proto

import (
	"encoding/binary"
	"fmt"
	"math"
)

// BatchType is the kind of a BATCH.
type BatchType byte

// Batch types.
const (
	LoggedBatch   BatchType = 0
	UnloggedBatch BatchType = 1
	CounterBatch  BatchType = 2
)

// String returns "LOGGED", "UNLOGGED" or "COUNTER".
func (t BatchType) String() string {
	switch t {
	case LoggedBatch:
		return "LOGGED"
	case UnloggedBatch:
		return "UNLOGGED"
	case CounterBatch:
		return "COUNTER"
	}
	return fmt.Sprintf("BATCHTYPE(%d)", byte(t))
}

// BatchStatement is one statement of a batch: either query text (ID empty) or a prepared
// statement id, with its positional values.
type BatchStatement struct {
	Query  string
	ID     []byte
	Values ValueWriter // nil: no values
}

// Batch is the BATCH request.
type Batch struct {
	FrameOptions
	Type              BatchType
	Statements        []BatchStatement
	Consistency       Consistency
	SerialConsistency Consistency // 0 leaves it unset
	Timestamp         int64       // default timestamp in microseconds, sent when HasTimestamp
	HasTimestamp      bool
	Keyspace          string // protocol v5 only
}

// Opcode returns OpBatch.
func (*Batch) Opcode() Opcode { return OpBatch }

// AppendBody appends <type><n><query_1>...<query_n><consistency><flags>[...].
func (b *Batch) AppendBody(dst []byte, version Version) ([]byte, error) {
	if b.Type > CounterBatch {
		return dst, fmt.Errorf("proto: unknown batch type %d", byte(b.Type))
	}
	if len(b.Statements) > math.MaxUint16 {
		return dst, fmt.Errorf("proto: BATCH of %d statements; the protocol allows at most 65535", len(b.Statements))
	}
	dst = append(dst, byte(b.Type))
	dst = AppendShort(dst, uint16(len(b.Statements)))
	var err error
	for i := range b.Statements {
		s := &b.Statements[i]
		if len(s.ID) > 0 {
			dst = append(dst, 1)
			dst, err = AppendShortBytes(dst, s.ID)
		} else {
			dst = append(dst, 0)
			dst, err = AppendLongString(dst, s.Query)
		}
		if err != nil {
			return dst, fmt.Errorf("batch statement %d: %w", i, err)
		}
		if s.Values == nil {
			dst = AppendShort(dst, 0)
			continue
		}
		if dst, err = appendValues(dst, s.Values); err != nil {
			return dst, fmt.Errorf("batch statement %d: %w", i, err)
		}
	}
	var flags uint32
	if b.SerialConsistency != 0 {
		flags |= queryFlagSerialConsistency
	}
	if b.HasTimestamp {
		flags |= queryFlagDefaultTimestamp
	}
	if b.Keyspace != "" {
		if version < Version5 {
			return dst, fmt.Errorf("%w: BATCH with keyspace %q", ErrKeyspaceNeedsV5, b.Keyspace)
		}
		flags |= queryFlagKeyspace
	}
	dst = AppendShort(dst, uint16(b.Consistency))
	if version >= Version5 {
		dst = binary.BigEndian.AppendUint32(dst, flags)
	} else {
		dst = append(dst, byte(flags))
	}
	if b.SerialConsistency != 0 {
		dst = AppendShort(dst, uint16(b.SerialConsistency))
	}
	if b.HasTimestamp {
		dst = AppendLong(dst, b.Timestamp)
	}
	if b.Keyspace != "" {
		return AppendString(dst, b.Keyspace)
	}
	return dst, nil
}
