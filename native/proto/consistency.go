package proto

import "fmt"

// Consistency is a CQL consistency level as encoded on the wire ([consistency], a [short]).
type Consistency uint16

// The consistency levels of the protocol.
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

var consistencyNames = [...]string{
	Any: "ANY", One: "ONE", Two: "TWO", Three: "THREE", Quorum: "QUORUM", All: "ALL",
	LocalQuorum: "LOCAL_QUORUM", EachQuorum: "EACH_QUORUM", Serial: "SERIAL",
	LocalSerial: "LOCAL_SERIAL", LocalOne: "LOCAL_ONE",
}

// String returns the CQL name of the level, e.g. "LOCAL_QUORUM".
func (c Consistency) String() string {
	if int(c) < len(consistencyNames) {
		return consistencyNames[c]
	}
	return fmt.Sprintf("CONSISTENCY(0x%04x)", uint16(c))
}

// ParseConsistency returns the level named s (as printed by String, case-sensitive).
func ParseConsistency(s string) (Consistency, error) {
	for i, n := range consistencyNames {
		if n == s {
			return Consistency(i), nil
		}
	}
	return 0, fmt.Errorf("proto: unknown consistency level %q", s)
}
