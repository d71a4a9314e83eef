package conformance

// Deviation is a scenario whose shim trace deliberately differs from legacy gocql, with the
// reason (each is listed in docs/deviations.md).
type Deviation struct {
	Scenario string
	Reason   string
}

// Deviations returns the pinned, deliberate differences between gocql v1.7.0 and the shim.
func Deviations() []Deviation {
	return []Deviation{
		{"iter/scan_after_close", "gocql v1.7.0 panics (nil framer) when Scan is called after Close with rows left; the shim returns false (legacy-semantics C19)."},
	}
}

// Expected reports whether a difference in scenario name is a pinned deviation, and why.
func Expected(name string) (string, bool) {
	for _, d := range Deviations() {
		if d.Scenario == name {
			return d.Reason, true
		}
	}
	return "", false
}
