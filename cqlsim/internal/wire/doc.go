// Package wire decodes the request side of the CQL native protocol (v3 to v5) for cqlsim: the
// frame header and the bodies of STARTUP, OPTIONS, REGISTER, AUTH_RESPONSE, QUERY, PREPARE,
// EXECUTE and BATCH. Responses are encoded with go-cassandra-native-protocol's frame codec.
//
// It exists beside that library's message codecs because a server must decode untrusted input:
// every length read here is checked against the bytes that remain before anything is allocated,
// so a frame that claims a 2 GiB value costs nothing, and values are sub-slices of the frame body
// rather than copies.
package wire
