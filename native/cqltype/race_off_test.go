//go:build !race

package cqltype

const raceEnabled = false
