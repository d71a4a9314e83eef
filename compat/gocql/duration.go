package gocql

// Duration is the Go type of a CQL duration: months, days and nanoseconds are
// kept apart because their lengths vary with the calendar.
type Duration struct {
	Months      int32
	Days        int32
	Nanoseconds int64
}
