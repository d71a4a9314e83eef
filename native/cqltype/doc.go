// Package cqltype holds the CQL type descriptors (every native type, list, set, map, tuple, UDT,
// vector, duration, counter, varint, decimal, inet, date, time) and the value codec that converts
// between Go values and their protocol encoding, with allocation-free fast paths for common types.
package cqltype
