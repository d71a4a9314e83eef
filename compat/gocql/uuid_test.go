package gocql

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

func TestParseUUIDAcceptsCanonicalAndBareForms(t *testing.T) {
	want := UUID{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	for _, in := range []string{
		"6ba7b810-9dad-11d1-80b4-00c04fd430c8",
		"6BA7B8109DAD11D180B400C04FD430C8",
		"-6ba7b810-9dad-11d1-80b4-00c04fd430c8-",
		"6b-a7-b8-10-9d-ad-11-d1-80-b4-00-c0-4f-d4-30-c8",
	} {
		got, err := ParseUUID(in)
		if err != nil {
			t.Fatalf("ParseUUID(%q): %v", in, err)
		}
		if got != want {
			t.Errorf("ParseUUID(%q) = %x, want %x", in, got, want)
		}
	}
}

func TestParseUUIDRejectsMalformedInput(t *testing.T) {
	for _, in := range []string{
		"",
		"6ba7b810-9dad-11d1-80b4-00c04fd430c",   // 31 digits
		"6ba7b810-9dad-11d1-80b4-00c04fd430c8a", // 33 digits
		"6ba7b810-9dad-11d1-80b4-00c04fd430cg",  // not hex
		"6-ba7b8109dad11d180b400c04fd430c8",     // hyphen inside a byte
	} {
		if u, err := ParseUUID(in); err == nil {
			t.Errorf("ParseUUID(%q) = %v, want an error", in, u)
		} else if u != (UUID{}) {
			t.Errorf("ParseUUID(%q) returned non-zero %v with its error", in, u)
		}
	}
}

func TestUUIDOfKnownVersion1Value(t *testing.T) {
	// The RFC 4122 DNS namespace UUID is a version 1 UUID from 1998-02-04.
	u, err := ParseUUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
	if err != nil {
		t.Fatal(err)
	}
	if u.Version() != 1 || u.Variant() != VariantIETF {
		t.Fatalf("version %d variant %d, want 1 and %d", u.Version(), u.Variant(), VariantIETF)
	}
	want := time.Date(1998, 2, 4, 22, 13, 53, 151182400, time.UTC)
	if got := u.Time(); !got.Equal(want) {
		t.Errorf("Time() = %v, want %v", got, want)
	}
	if got := u.Clock(); got != 0x00b4 {
		t.Errorf("Clock() = %#x, want 0xb4", got)
	}
	if got := u.Node(); !bytes.Equal(got, []byte{0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}) {
		t.Errorf("Node() = %x", got)
	}
	if s := u.String(); s != "6ba7b810-9dad-11d1-80b4-00c04fd430c8" {
		t.Errorf("String() = %q", s)
	}
}

func TestTimeUUIDRoundTripsTimeAndIsUnique(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456700, time.UTC)
	a, b := UUIDFromTime(at), UUIDFromTime(at)
	if a == b {
		t.Fatalf("two UUIDFromTime calls returned the same UUID %v", a)
	}
	for _, u := range []UUID{a, b, MinTimeUUID(at), MaxTimeUUID(at)} {
		if u.Version() != 1 || u.Variant() != VariantIETF {
			t.Errorf("%v: version %d variant %d", u, u.Version(), u.Variant())
		}
		if !u.Time().Equal(at) {
			t.Errorf("%v: Time() = %v, want %v", u, u.Time(), at)
		}
	}
	if got := MinTimeUUID(at).Node(); !bytes.Equal(got, minNode) {
		t.Errorf("MinTimeUUID node %x", got)
	}
	if got := MaxTimeUUID(at).Clock(); got != maxClock&0x3FFF {
		t.Errorf("MaxTimeUUID clock %#x", got)
	}
}

func TestRandomUUIDVersionAndVariant(t *testing.T) {
	u, err := RandomUUID()
	if err != nil {
		t.Fatal(err)
	}
	if u.Version() != 4 || u.Variant() != VariantIETF {
		t.Errorf("%v: version %d variant %d", u, u.Version(), u.Variant())
	}
	if u.Node() != nil || u.Clock() != 0 || u.Timestamp() != 0 || !u.Time().IsZero() {
		t.Errorf("version 4 UUID reports time-based fields")
	}
	if MustRandomUUID() == u {
		t.Errorf("two random UUIDs are equal")
	}
}

func TestUUIDFromBytesLength(t *testing.T) {
	if _, err := UUIDFromBytes(make([]byte, 15)); err == nil {
		t.Error("UUIDFromBytes accepted 15 bytes")
	}
	u, err := UUIDFromBytes(bytes.Repeat([]byte{0xab}, 16))
	if err != nil || u.String() != "abababab-abab-abab-abab-abababababab" {
		t.Errorf("UUIDFromBytes = %v, %v", u, err)
	}
}

func TestUUIDJSONAndText(t *testing.T) {
	u := MustRandomUUID()
	b, err := json.Marshal(struct{ ID UUID }{u})
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ ID UUID }
	if err := json.Unmarshal(b, &back); err != nil || back.ID != u {
		t.Fatalf("JSON round trip: %v, %v (json %s)", back.ID, err, b)
	}
	keep := u
	if err := keep.UnmarshalJSON([]byte(`"not-a-uuid"`)); err == nil || keep != u {
		t.Errorf("UnmarshalJSON of garbage: err %v, value changed to %v", err, keep)
	}
	if err := keep.UnmarshalJSON([]byte(`"` + u.String() + `-0000"`)); err == nil {
		t.Error("UnmarshalJSON accepted a 41-character string")
	}
	var txt UUID
	if err := txt.UnmarshalText([]byte(u.String())); err != nil || txt != u {
		t.Errorf("UnmarshalText = %v, %v", txt, err)
	}
	if err := txt.UnmarshalText([]byte("zz")); err == nil || txt != (UUID{}) {
		t.Errorf("UnmarshalText of garbage: %v, %v", txt, err)
	}
}
