package native

import (
	"fmt"
	"strconv"
	"strings"
)

// Consistency is a CQL consistency level, valued as its protocol code.
type Consistency uint16

// The consistency levels of the CQL protocol.
const (
	Any         Consistency = 0x0000
	One         Consistency = 0x0001
	Two         Consistency = 0x0002
	Three       Consistency = 0x0003
	Quorum      Consistency = 0x0004
	All         Consistency = 0x0005
	LocalQuorum Consistency = 0x0006
	EachQuorum  Consistency = 0x0007
	Serial      Consistency = 0x0008
	LocalSerial Consistency = 0x0009
	LocalOne    Consistency = 0x000A
)

// DefaultConsistency is the consistency level a Session uses when Config.Consistency is not set:
// LOCAL_QUORUM, so that a write followed by a read in the same data center sees the write even
// with a replication factor above one. (gocql defaults to QUORUM, the DataStax drivers to
// LOCAL_ONE; the compat layer sets its own default explicitly.)
const DefaultConsistency = LocalQuorum

var consistencyNames = [...]string{
	Any:         "ANY",
	One:         "ONE",
	Two:         "TWO",
	Three:       "THREE",
	Quorum:      "QUORUM",
	All:         "ALL",
	LocalQuorum: "LOCAL_QUORUM",
	EachQuorum:  "EACH_QUORUM",
	Serial:      "SERIAL",
	LocalSerial: "LOCAL_SERIAL",
	LocalOne:    "LOCAL_ONE",
}

// String returns the CQL name of the level, such as "LOCAL_QUORUM".
func (c Consistency) String() string {
	if int(c) < len(consistencyNames) {
		return consistencyNames[c]
	}
	return "CONSISTENCY(0x" + strconv.FormatUint(uint64(c), 16) + ")"
}

// IsSerial reports whether c is SERIAL or LOCAL_SERIAL, the levels allowed as a serial
// consistency.
func (c Consistency) IsSerial() bool { return c == Serial || c == LocalSerial }

// valid reports whether c is one of the protocol's levels.
func (c Consistency) valid() bool { return c <= LocalOne }

// ParseConsistency parses a level by its CQL name, case-insensitively ("quorum", "LOCAL_ONE").
func ParseConsistency(s string) (Consistency, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	for i, n := range consistencyNames {
		if n == u {
			return Consistency(i), nil
		}
	}
	return 0, fmt.Errorf("native: unknown consistency level %q", s)
}
