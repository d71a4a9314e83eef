//go:build race

package cqltype

const raceEnabled = true
