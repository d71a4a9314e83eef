package gocql

import (
	"fmt"
	"strings"
)

// Consistency is the consistency level of a read or write, valued as the
// protocol's [consistency] code.
type Consistency uint16

// The consistency levels.
const (
	Any         Consistency = 0x00
	One         Consistency = 0x01
	Two         Consistency = 0x02
	Three       Consistency = 0x03
	Quorum      Consistency = 0x04
	All         Consistency = 0x05
	LocalQuorum Consistency = 0x06
	EachQuorum  Consistency = 0x07
	LocalOne    Consistency = 0x0A
)

var consistencyNames = map[Consistency]string{
	Any:         "ANY",
	One:         "ONE",
	Two:         "TWO",
	Three:       "THREE",
	Quorum:      "QUORUM",
	All:         "ALL",
	LocalQuorum: "LOCAL_QUORUM",
	EachQuorum:  "EACH_QUORUM",
	LocalOne:    "LOCAL_ONE",
}

// String returns the level's CQL name ("QUORUM", "LOCAL_ONE", ...).
func (c Consistency) String() string {
	if name, ok := consistencyNames[c]; ok {
		return name
	}
	return fmt.Sprintf("UNKNOWN_CONS_0x%x", uint16(c))
}

// MarshalText returns the level's name, as String does.
func (c Consistency) MarshalText() (text []byte, err error) {
	return []byte(c.String()), nil
}

// UnmarshalText sets c from an upper-case level name such as "LOCAL_QUORUM".
func (c *Consistency) UnmarshalText(text []byte) error {
	for level, name := range consistencyNames {
		if name == string(text) {
			*c = level
			return nil
		}
	}
	return fmt.Errorf("invalid consistency %q", string(text))
}

// ParseConsistency parses a level name in any letter case. As in gocql, it
// panics on an unknown name; ParseConsistencyWrapper returns the error instead.
func ParseConsistency(s string) Consistency {
	c, err := ParseConsistencyWrapper(s)
	if err != nil {
		panic(err)
	}
	return c
}

// ParseConsistencyWrapper parses a level name in any letter case and returns
// an error for an unknown name.
func ParseConsistencyWrapper(s string) (consistency Consistency, err error) {
	err = consistency.UnmarshalText([]byte(strings.ToUpper(s)))
	return consistency, err
}

// MustParseConsistency is ParseConsistency with an error result that is
// always nil: it panics on an unknown name.
//
// Deprecated: use ParseConsistency, or ParseConsistencyWrapper to get an
// error instead of a panic.
func MustParseConsistency(s string) (Consistency, error) {
	return ParseConsistency(s), nil
}

// SerialConsistency is the consistency level of the Paxos phase of
// lightweight transactions.
type SerialConsistency uint16

// The serial consistency levels.
const (
	Serial      SerialConsistency = 0x08
	LocalSerial SerialConsistency = 0x09
)

// String returns "SERIAL" or "LOCAL_SERIAL".
func (s SerialConsistency) String() string {
	switch s {
	case Serial:
		return "SERIAL"
	case LocalSerial:
		return "LOCAL_SERIAL"
	}
	return fmt.Sprintf("UNKNOWN_SERIAL_CONS_0x%x", uint16(s))
}

// MarshalText returns the level's name, as String does.
func (s SerialConsistency) MarshalText() (text []byte, err error) {
	return []byte(s.String()), nil
}

// UnmarshalText sets s from "SERIAL" or "LOCAL_SERIAL".
func (s *SerialConsistency) UnmarshalText(text []byte) error {
	switch string(text) {
	case "SERIAL":
		*s = Serial
	case "LOCAL_SERIAL":
		*s = LocalSerial
	default:
		return fmt.Errorf("invalid consistency %q", string(text))
	}
	return nil
}
