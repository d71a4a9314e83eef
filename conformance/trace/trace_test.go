package trace

import (
	"net"
	"testing"
	"time"
)

// Values that print the same through their String method but differ to an application must
// not format the same.
func TestFormatKeepsWhatStringHides(t *testing.T) {
	v4 := net.IPv4(10, 1, 2, 3).To4()
	v16 := net.IPv4(10, 1, 2, 3).To16()
	if a, b := Format(&v4), Format(&v16); a == b {
		t.Errorf("*net.IP of 4 and of 16 bytes format the same: %s", a)
	}
	if a, b := Format(map[string]any{"v": v4}), Format(map[string]any{"v": v16}); a == b {
		t.Errorf("net.IP of 4 and of 16 bytes format the same in a map: %s", a)
	}
	// A zone that prints as UTC but is not time.UTC, as time.Local is on a UTC host.
	utc := time.Date(2024, 2, 29, 13, 14, 15, 0, time.UTC)
	other := utc.In(time.FixedZone("UTC", 0))
	if a, b := Format(&utc), Format(&other); a == b {
		t.Errorf("*time.Time in time.UTC and in another zone named UTC format the same: %s", a)
	}
	if a, b := Format(map[string]any{"v": utc}), Format(map[string]any{"v": other}); a == b {
		t.Errorf("time.Time in time.UTC and in another zone named UTC format the same in a map: %s", a)
	}
	if got, want := Format(&utc), "*time.Time:2024-02-29 13:14:15 +0000 UTC loc=time.UTC"; got != want {
		t.Errorf("Format(&utc) = %q, want %q", got, want)
	}
}
