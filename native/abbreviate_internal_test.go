package native

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// abbreviate shortens long statements in error messages: the cut falls on a character
// boundary, so that a multi-byte character straddling the limit is dropped whole instead
// of leaving half of its bytes (which %q would then print as \x escapes).
func TestAbbreviateCutsOnRuneBoundary(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("a", 119) + "é" + strings.Repeat("b", 10), // é is bytes 119 and 120
		strings.Repeat("a", 118) + "€" + strings.Repeat("b", 10), // € is bytes 118 to 120
		strings.Repeat("a", 117) + "😀" + strings.Repeat("b", 10), // 😀 is bytes 117 to 120
		strings.Repeat("é", 100),
	} {
		got := abbreviate(s)
		if !utf8.ValidString(got) {
			t.Errorf("abbreviate(%q) = %q, not valid UTF-8", s, got)
		}
		body, ok := strings.CutSuffix(got, "...")
		if !ok || !strings.HasPrefix(s, body) || len(body) > 120 || len(body) < 117 {
			t.Errorf("abbreviate(%q) = %q, want a prefix of at most 120 bytes on a character boundary and ...", s, got)
		}
	}
	short := strings.Repeat("é", 60) // 120 bytes: unchanged
	if got := abbreviate(short); got != short {
		t.Errorf("abbreviate of 120 bytes = %q, want it unchanged", got)
	}
}
