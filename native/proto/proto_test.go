package proto

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestHeaderRoundTrip(t *testing.T) {
	for _, h := range []Header{
		{Version: Version4, Flags: FlagTracing | FlagCompression, Stream: 32767, Opcode: OpExecute, Length: 123456},
		{Version: Version4, Response: true, Stream: -1, Opcode: OpEvent},
		{Version: Version5, Response: true, Stream: 0, Opcode: OpResult, Length: DefaultMaxFrameSize},
	} {
		b := AppendHeader(nil, h)
		if len(b) != HeaderSize {
			t.Fatalf("header of %d bytes", len(b))
		}
		got, err := ParseHeader(b, 0)
		if err != nil || got != h {
			t.Errorf("ParseHeader(AppendHeader(%+v)) = %+v, %v", h, got, err)
		}
	}
}

func TestParseHeaderErrors(t *testing.T) {
	ok := AppendHeader(nil, Header{Version: Version4, Response: true, Opcode: OpResult, Length: 10})
	cases := []struct {
		name string
		b    []byte
		max  int
		want error
	}{
		{"short", ok[:8], 0, ErrMalformed},
		{"version 2", append([]byte{0x82}, ok[1:]...), 0, ErrMalformed},
		{"version 6", append([]byte{0x86}, ok[1:]...), 0, ErrMalformed},
		{"negative length", append(ok[:5:5], 0xff, 0xff, 0xff, 0xf0), 0, ErrMalformed},
		{"over the limit", ok, 9, ErrFrameTooLarge},
		{"over the default limit", append(ok[:5:5], 0x10, 0, 0, 1), 0, ErrFrameTooLarge},
	}
	for _, tc := range cases {
		if _, err := ParseHeader(tc.b, tc.max); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestAppendFrameSetsLengthAndStream(t *testing.T) {
	prefix := []byte("previous frame")
	b, err := AppendFrame(prefix, Version4, 5, &Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ParseHeader(b[len(prefix):], 0)
	if err != nil || h.Length != 0 || h.Stream != 5 || h.Opcode != OpOptions || h.Response {
		t.Fatalf("header %+v, %v", h, err)
	}
	SetStream(b[len(prefix):], 300)
	if h, _ := ParseHeader(b[len(prefix):], 0); h.Stream != 300 {
		t.Errorf("SetStream: stream = %d", h.Stream)
	}
	if !bytes.Equal(b[:len(prefix)], prefix) {
		t.Error("AppendFrame changed the bytes before it")
	}
}

func TestAppendFrameErrorsKeepDst(t *testing.T) {
	dst := []byte("keep")
	cases := map[string]Request{
		"keyspace on v4":  &Query{Query: "x", Params: QueryParams{Keyspace: "ks"}},
		"prepare ks v4":   &Prepare{Query: "x", Keyspace: "ks"},
		"batch ks v4":     &Batch{Statements: []BatchStatement{{Query: "x"}}, Keyspace: "ks"},
		"bad batch type":  &Batch{Type: 7, Statements: []BatchStatement{{Query: "x"}}},
		"execute no id":   &Execute{},
		"register none":   &Register{},
		"too many values": &Query{Query: "x", Params: QueryParams{Values: make(Values, 70000)}},
		"long id":         &Execute{ID: make([]byte, 70000)},
		"writer error": &Query{Query: "x", Params: QueryParams{Values: valueWriterFunc(func(dst []byte) ([]byte, int, error) {
			return dst, 0, errors.New("cannot encode argument 1")
		})}},
	}
	for name, req := range cases {
		for _, comp := range []Compressor{nil, LZ4{}} {
			got, err := AppendFrame(dst, Version4, 1, req, comp)
			if err == nil {
				t.Errorf("%s: no error", name)
			}
			if string(got) != "keep" {
				t.Errorf("%s: dst = %q after an error, want it unchanged", name, got)
			}
		}
	}
	if _, err := AppendFrame(nil, Version4, 1, &Query{Query: "x", Params: QueryParams{Keyspace: "ks"}}, nil); !errors.Is(err, ErrKeyspaceNeedsV5) {
		t.Errorf("keyspace on v4: err = %v, want ErrKeyspaceNeedsV5", err)
	}
}

func TestQueryParamsV5(t *testing.T) {
	p := QueryParams{Consistency: One, Keyspace: "ks", PageSize: 10}
	b, err := AppendQueryParams(nil, &p, Version5)
	if err != nil {
		t.Fatal(err)
	}
	// consistency, 4-byte flags (page size | keyspace), page size, keyspace.
	want := []byte{0, 1, 0, 0, 0, 0x84, 0, 0, 0, 10, 0, 2, 'k', 's'}
	if !bytes.Equal(b, want) {
		t.Errorf("v5 params = %x, want %x", b, want)
	}
}

func TestStartupDefaultsCQLVersion(t *testing.T) {
	b, err := (&Startup{}).AppendBody(nil, Version4)
	if err != nil {
		t.Fatal(err)
	}
	d := decoder{b: b}
	if n := d.short("n"); n != 1 || d.string_("k") != StartupCQLVersion || d.string_("v") != DefaultCQLVersion {
		t.Errorf("STARTUP body %q", b)
	}
	b, _ = (&Startup{Options: map[string]string{StartupCQLVersion: "3.4.0"}}).AppendBody(nil, Version4)
	if !bytes.Contains(b, []byte("3.4.0")) || bytes.Contains(b, []byte(DefaultCQLVersion)) {
		t.Errorf("explicit CQL_VERSION not kept: %q", b)
	}
}

func TestCompressorsRoundTrip(t *testing.T) {
	inputs := [][]byte{{}, []byte("x"), []byte(strings.Repeat("abc", 10000)), bytes.Repeat([]byte{0}, 1<<16)}
	random := make([]byte, 5000)
	for i := range random {
		random[i] = byte(i*7919 + i>>3)
	}
	inputs = append(inputs, random)
	for _, name := range []string{"lz4", "snappy"} {
		c, err := NewCompressor(name)
		if err != nil || c.Name() != name {
			t.Fatalf("NewCompressor(%s) = %v, %v", name, c, err)
		}
		for _, in := range inputs {
			comp, err := c.AppendCompressed([]byte("pre"), in)
			if err != nil {
				t.Fatalf("%s: compress: %v", name, err)
			}
			out, err := c.AppendDecompressed([]byte("pre"), comp[3:], 1<<20)
			if err != nil || !bytes.Equal(out[3:], in) || string(out[:3]) != "pre" {
				t.Errorf("%s: round trip of %d bytes: %v", name, len(in), err)
			}
			if n, ok := DecompressedSize(c, comp[3:]); !ok || n != int64(len(in)) {
				t.Errorf("%s: DecompressedSize of %d bytes compressed = %d, %v", name, len(in), n, ok)
			}
		}
		big, _ := c.AppendCompressed(nil, bytes.Repeat([]byte{1}, 100000))
		if _, err := c.AppendDecompressed(nil, big, 1000); !errors.Is(err, ErrFrameTooLarge) {
			t.Errorf("%s: decompressing past the limit: err = %v, want ErrFrameTooLarge", name, err)
		}
	}
	if _, ok := DecompressedSize(LZ4{}, []byte{1, 2}); ok {
		t.Error("DecompressedSize of a 2-byte lz4 body (no length prefix) reported a size")
	}
	if _, ok := DecompressedSize(nil, []byte{1, 2, 3, 4}); ok {
		t.Error("DecompressedSize without a compressor reported a size")
	}
	if _, err := NewCompressor("zstd"); err == nil {
		t.Error("NewCompressor(zstd) succeeded")
	}
	// A 5-byte lz4 body claiming 200 MB must be refused before allocating.
	if _, err := (LZ4{}).AppendDecompressed(nil, []byte{0x0b, 0xeb, 0xc2, 0x00, 0x10}, DefaultMaxFrameSize); !errors.Is(err, ErrMalformed) {
		t.Errorf("lying lz4 length: err = %v, want ErrMalformed", err)
	}
}

func TestCompressedFrameWithoutCompressorFails(t *testing.T) {
	r := AcquireResponse()
	defer r.Release()
	err := r.Decode(Header{Version: Version4, Response: true, Flags: FlagCompression, Opcode: OpResult}, []byte{1, 2, 3}, nil, nil)
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("err = %v, want ErrMalformed", err)
	}
}

func TestRateLimitError(t *testing.T) {
	body := func(code ErrorCode) []byte {
		b := AppendInt(nil, int32(code))
		b, _ = AppendString(b, "rate limit exceeded")
		return append(b, 1, 1)
	}
	for _, tc := range []struct {
		code, configured ErrorCode
	}{{ErrCodeRateLimit, 0}, {0x7001, 0x7001}} {
		r := AcquireResponse()
		if err := r.Decode(Header{Version: Version4, Response: true, Opcode: OpError}, body(tc.code), nil, &DecodeOptions{RateLimitCode: tc.configured}); err != nil {
			t.Fatal(err)
		}
		e := r.Msg.(*ErrorResponse)
		if e.Code != tc.code || e.RateLimitOpType != 1 || !e.RejectedByCoordinator {
			t.Errorf("rate limit error = %+v", e)
		}
		r.Release()
	}
}

// CDC_WRITE_FAILURE carries the message alone, CAS_WRITE_UNKNOWN <cl><received><blockfor>
// after it (v5 spec section 8; drivers decode them in any version).
func TestCDCAndCASErrors(t *testing.T) {
	body := func(code ErrorCode, fields ...byte) []byte {
		b := AppendInt(nil, int32(code))
		b, _ = AppendString(b, "m")
		return append(b, fields...)
	}
	for _, tc := range []struct {
		body    []byte
		want    ErrorResponse
		wantErr string
	}{
		{body(ErrCodeCDCWriteFailure), ErrorResponse{Code: ErrCodeCDCWriteFailure, Message: "m"},
			"cql: CDC write failure (0x1600): m"},
		{body(ErrCodeCASWriteUnknown, 0, 8, 0, 0, 0, 1, 0, 0, 0, 2), ErrorResponse{Code: ErrCodeCASWriteUnknown, Message: "m", Consistency: Serial, Received: 1, BlockFor: 2},
			"cql: CAS write unknown (0x1700): m [consistency=SERIAL received=1 blockfor=2]"},
	} {
		for _, v := range []Version{Version4, Version5} {
			r := AcquireResponse()
			if err := r.Decode(Header{Version: v, Response: true, Opcode: OpError}, tc.body, nil, nil); err != nil {
				t.Fatalf("v%d %s: %v", v, tc.want.Code, err)
			}
			e := r.Msg.(*ErrorResponse)
			if !reflect.DeepEqual(*e, tc.want) || e.Error() != tc.wantErr {
				t.Errorf("v%d: decoded %+v (%q), want %+v (%q)", v, *e, e.Error(), tc.want, tc.wantErr)
			}
			r.Release()
		}
	}
	// A CAS_WRITE_UNKNOWN cut short is malformed.
	r := AcquireResponse()
	defer r.Release()
	if err := r.Decode(Header{Version: Version4, Response: true, Opcode: OpError}, body(ErrCodeCASWriteUnknown, 0, 8), nil, nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("a truncated CAS_WRITE_UNKNOWN: err = %v, want ErrMalformed", err)
	}
}

func TestRowCursor(t *testing.T) {
	var data []byte
	data = AppendBytes(data, []byte("a"))
	data = AppendBytes(data, nil)
	data = AppendBytes(data, []byte{})
	data = AppendBytes(data, []byte("bb"))
	c, err := NewRowCursor(data, 2, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for c.Next() {
		for _, cell := range c.Row() {
			switch {
			case cell == nil:
				got = append(got, "NULL")
			default:
				got = append(got, "'"+string(cell)+"'")
			}
		}
	}
	if strings.Join(got, " ") != "'a' NULL '' 'bb'" {
		t.Errorf("cells = %v", got)
	}
	if _, err := NewRowCursor(data, 3, 2, nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("too many rows: err = %v", err)
	}
	if _, err := NewRowCursor(data, 1, 2, nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("trailing data: err = %v", err)
	}
}

func TestMetadataCacheReusesColumns(t *testing.T) {
	b := encodeResponseRef(t, rowsMsg, "", nil)
	h, _ := ParseHeader(b, 0)
	r := AcquireResponse()
	if err := r.Decode(h, b[HeaderSize:], nil, nil); err != nil {
		t.Fatal(err)
	}
	first := r.Msg.(*RowsResult).Metadata.Columns
	r.reset()
	if err := r.Decode(h, b[HeaderSize:], nil, nil); err != nil {
		t.Fatal(err)
	}
	second := r.Msg.(*RowsResult).Metadata.Columns
	if &first[0] != &second[0] {
		t.Error("identical metadata decoded twice into new columns")
	}
	checkRows(t, r.Msg.(*RowsResult))
	r.Release()
}

func TestPool(t *testing.T) {
	for _, size := range []int{0, 1, 512, 513, 4096, 1 << 22, 1<<22 + 1} {
		b := GetBuffer(size)
		if len(*b) != 0 || cap(*b) < size {
			t.Errorf("GetBuffer(%d): len %d cap %d", size, len(*b), cap(*b))
		}
		*b = append(*b, 1, 2, 3)
		PutBuffer(b)
	}
	PutBuffer(nil)
}

func TestConsistencyNames(t *testing.T) {
	for c := Any; c <= LocalOne; c++ {
		got, err := ParseConsistency(c.String())
		if err != nil || got != c {
			t.Errorf("ParseConsistency(%s) = %v, %v", c, got, err)
		}
	}
	if _, err := ParseConsistency("SOME"); err == nil {
		t.Error("ParseConsistency(SOME) succeeded")
	}
	if Consistency(77).String() == "" || ErrorCode(1).String() == "" || Opcode(0x55).String() == "" {
		t.Error("unknown values have empty names")
	}
}

func TestPasswordAuthenticator(t *testing.T) {
	a := &PasswordAuthenticator{Username: "u", Password: "p"}
	ex, tok, err := a.Start("org.apache.cassandra.auth.PasswordAuthenticator")
	if err != nil || string(tok) != "\x00u\x00p" {
		t.Fatalf("Start = %q, %v", tok, err)
	}
	if _, err := ex.Challenge([]byte("x")); err == nil {
		t.Error("PLAIN accepted a challenge")
	}
	if err := ex.Success(nil); err != nil {
		t.Error(err)
	}
	a.AllowedAuthenticators = []string{"com.example.Auth"}
	if _, _, err := a.Start("org.apache.cassandra.auth.PasswordAuthenticator"); err == nil {
		t.Error("disallowed authenticator accepted")
	}
}
