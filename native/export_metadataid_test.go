package native

// DropResultMetadataID makes p's metadata carry no result metadata id, as when the statement
// was prepared on a connection without result metadata ids, for the external tests.
func DropResultMetadataID(p *Prepared) {
	m := *p.m()
	m.resultMetadataID = nil
	p.meta.Store(&m)
}

// ResultMetadataID returns the result metadata id p's executions send, for the external
// tests.
func ResultMetadataID(p *Prepared) []byte { return p.m().resultMetadataID }
