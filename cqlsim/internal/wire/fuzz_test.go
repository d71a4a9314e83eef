package wire

import (
	"testing"
	"unsafe"
)

// FuzzDecodeRequest decodes arbitrary bodies under every request opcode and flag combination.
// Decoding must never panic, and every value it returns must alias the body (no copies, no
// out-of-range slices).
//
//	go test ./cqlsim/internal/wire -run '^$' -fuzz FuzzDecodeRequest -fuzztime 20s
func FuzzDecodeRequest(f *testing.F) {
	f.Add(byte(OpQuery), byte(0), false, []byte("\x00\x00\x00\x08SELECT 1\x00\x01\x05\x00\x01\x00\x00\x00\x01\x07\x00\x00\x00\x10"))
	f.Add(byte(OpExecute), byte(0), false, []byte("\x00\x02ab\x00\x01\x41\x00\x01\x00\x01k\x00\x00\x00\x01\x01"))
	f.Add(byte(OpBatch), byte(0), false, []byte("\x00\x00\x02\x00\x00\x00\x00\x03abc\x00\x00\x01\x00\x01z\x00\x01\xff\xff\xff\xfe\x00\x01\x30\x00\x09\x00\x00\x00\x00\x00\x00\x00\x01"))
	f.Add(byte(OpStartup), byte(FlagCustomPayload), false, []byte("\x00\x01\x00\x01k\x00\x00\x00\x00\x00\x01\x00\x0bCQL_VERSION\x00\x053.0.0"))
	f.Add(byte(OpRegister), byte(0), false, []byte("\x00\x01\x00\x0dSCHEMA_CHANGE"))
	f.Add(byte(OpAuthResponse), byte(0), false, []byte("\x00\x00\x00\x03\x00a\x00"))
	f.Add(byte(OpQuery), byte(0), true, []byte("\x00\x00\x00\x08SELECT 1\x00\x01\x00\x00\x01\x80\x00\x02ks\x00\x00\x00\x07"))
	f.Add(byte(OpPrepare), byte(0), true, []byte("\x00\x00\x00\x08SELECT 1\x00\x00\x00\x01\x00\x02ks"))
	f.Fuzz(func(t *testing.T, opcode, flags byte, v5 bool, body []byte) {
		version := uint8(4)
		if v5 {
			version = 5
		}
		req, err := DecodeRequest(Header{Version: version, Flags: flags, Opcode: opcode}, body)
		if err != nil {
			return
		}
		within := func(b []byte) {
			if len(b) == 0 {
				return
			}
			start := uintptr(unsafe.Pointer(unsafe.SliceData(body)))
			p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
			if p < start || p+uintptr(len(b)) > start+uintptr(len(body)) {
				t.Fatalf("decoded value of %d bytes lies outside the body", len(b))
			}
		}
		var params []QueryParams
		if req.Query != nil {
			params = append(params, req.Query.Params)
		}
		if req.Execute != nil {
			within(req.Execute.ID)
			params = append(params, req.Execute.Params)
		}
		for _, p := range params {
			within(p.PagingState)
			for _, v := range p.Values.Positional {
				within(v.Bytes)
			}
			for _, v := range p.Values.Named {
				within(v.Bytes)
			}
		}
		if req.Batch != nil {
			for _, s := range req.Batch.Statements {
				within(s.ID)
				for _, v := range s.Values.Positional {
					within(v.Bytes)
				}
			}
		}
		within(req.AuthResponse)
	})
}
