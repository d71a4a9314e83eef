package gocql

import (
	"strings"
	"testing"
)

func TestConsistencyNamesRoundTrip(t *testing.T) {
	for _, c := range []Consistency{Any, One, Two, Three, Quorum, All, LocalQuorum, EachQuorum, LocalOne} {
		text, _ := c.MarshalText()
		var back Consistency
		if err := back.UnmarshalText(text); err != nil || back != c {
			t.Errorf("%v: UnmarshalText(%q) = %v, %v", uint16(c), text, back, err)
		}
		if got := ParseConsistency(strings.ToLower(c.String())); got != c {
			t.Errorf("ParseConsistency(%q) = %v", strings.ToLower(c.String()), got)
		}
	}
	if s := Consistency(0x0B).String(); s != "UNKNOWN_CONS_0xb" {
		t.Errorf("unknown level String() = %q", s)
	}
	if LocalQuorum.String() != "LOCAL_QUORUM" || Consistency(6) != LocalQuorum {
		t.Error("LOCAL_QUORUM is not level 6")
	}
}

func TestParseConsistencyErrors(t *testing.T) {
	if _, err := ParseConsistencyWrapper("quorom"); err == nil || err.Error() != `invalid consistency "QUOROM"` {
		t.Errorf("ParseConsistencyWrapper error = %v", err)
	}
	var c Consistency
	if err := c.UnmarshalText([]byte("quorum")); err == nil {
		t.Error("UnmarshalText accepted lower case, gocql does not")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("ParseConsistency did not panic on an unknown level")
			}
		}()
		ParseConsistency("nope")
	}()
}

func TestSerialConsistency(t *testing.T) {
	for _, s := range []SerialConsistency{Serial, LocalSerial} {
		text, _ := s.MarshalText()
		var back SerialConsistency
		if err := back.UnmarshalText(text); err != nil || back != s {
			t.Errorf("UnmarshalText(%q) = %v, %v", text, back, err)
		}
	}
	if Serial != 8 || LocalSerial != 9 {
		t.Error("serial levels have wrong protocol codes")
	}
	var s SerialConsistency
	if err := s.UnmarshalText([]byte("QUORUM")); err == nil {
		t.Error("SerialConsistency accepted QUORUM")
	}
	if got := SerialConsistency(1).String(); got != "UNKNOWN_SERIAL_CONS_0x1" {
		t.Errorf("String() = %q", got)
	}
}
