package wire

import (
	"encoding/binary"
	"fmt"
)

// reader walks a request body. The first failure sticks in err; later reads return zero values,
// so decoders read a whole message and check err once.
type reader struct {
	b   []byte
	off int
	err error
	// preV4 is set for a protocol v3 request: it has no unset value, and Cassandra reads any
	// negative [value] length as NULL.
	preV4 bool
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("at byte %d: "+format, append([]any{r.off}, args...)...)
	}
}

func (r *reader) remaining() int { return len(r.b) - r.off }

func (r *reader) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > r.remaining() {
		r.fail("%s needs %d bytes, %d remain", what, n, r.remaining())
		return nil
	}
	s := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return s
}

func (r *reader) byte(what string) byte {
	s := r.take(1, what)
	if s == nil {
		return 0
	}
	return s[0]
}

func (r *reader) short(what string) uint16 {
	s := r.take(2, what)
	if s == nil {
		return 0
	}
	return binary.BigEndian.Uint16(s)
}

func (r *reader) int(what string) int32 {
	s := r.take(4, what)
	if s == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(s))
}

func (r *reader) long(what string) int64 {
	s := r.take(8, what)
	if s == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(s))
}

// string reads a [string]: a short length and that many bytes.
func (r *reader) string(what string) string {
	n := r.short(what + " length")
	return string(r.take(int(n), what))
}

// longString reads a [long string]: an int length and that many bytes.
func (r *reader) longString(what string) string {
	n := r.int(what + " length")
	if r.err == nil && n < 0 {
		r.fail("%s has negative length %d", what, n)
		return ""
	}
	return string(r.take(int(n), what))
}

// bytes reads [bytes]: an int length (negative: null) and that many bytes, without copying.
func (r *reader) bytes(what string) []byte {
	n := r.int(what + " length")
	if r.err != nil || n < 0 {
		return nil
	}
	return r.take(int(n), what)
}

// shortBytes reads [short bytes] without copying.
func (r *reader) shortBytes(what string) []byte {
	n := r.short(what + " length")
	return r.take(int(n), what)
}

func (r *reader) stringList(what string) []string {
	n := int(r.short(what + " count"))
	if r.err != nil {
		return nil
	}
	// Every element takes at least two bytes: cap the allocation by what remains.
	if n*2 > r.remaining() {
		r.fail("%s claims %d elements, %d bytes remain", what, n, r.remaining())
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.string(what))
	}
	return out
}

func (r *reader) stringMap(what string) map[string]string {
	n := int(r.short(what + " count"))
	if r.err != nil {
		return nil
	}
	if n*4 > r.remaining() {
		r.fail("%s claims %d entries, %d bytes remain", what, n, r.remaining())
		return nil
	}
	out := make(map[string]string, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := r.string(what + " key")
		v := r.string(what + " value")
		out[k] = v
	}
	return out
}

// skipBytesMap skips a [bytes map] (the custom payload).
func (r *reader) skipBytesMap(what string) {
	n := int(r.short(what + " count"))
	for i := 0; i < n && r.err == nil; i++ {
		r.string(what + " key")
		r.bytes(what + " value")
	}
}
