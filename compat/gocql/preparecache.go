package gocql

// textPrepared is an entry of Session.preparedText: the converted metadata of a statement
// text prepared in keyspace.
type textPrepared struct {
	keyspace string
	info     *preparedInfo
}

// preparedByText returns the metadata of stmt prepared earlier in the native session's
// current keyspace, nil when there is none. It saves the native core's cache lookup (a lock and
// a wait on the entry) on every execution of a prepared statement; the native core keeps
// successful preparations for the life of the session too, so both caches agree.
func (s *Session) preparedByText(stmt string) *preparedInfo {
	v, ok := s.preparedText.Load(stmt)
	if !ok {
		return nil
	}
	e := v.(*textPrepared)
	if e.keyspace != s.native.Keyspace() {
		return nil
	}
	if e.info.stmt.Evicted() {
		// The server refused to prepare the statement again (its table was dropped): as
		// gocql, which then drops it from its cache, prepare it anew rather than binding
		// values with metadata that may describe the old table.
		s.preparedText.CompareAndDelete(stmt, v)
		s.prepared.Delete(e.info.stmt)
		return nil
	}
	if !e.info.current() {
		// The native core prepared the statement again (its table changed): convert the
		// new metadata.
		info := s.preparedInfo(e.info.stmt)
		s.rememberPrepared(stmt, e.keyspace, info)
		return info
	}
	return e.info
}

// rememberPrepared records info as the preparation of stmt in keyspace.
func (s *Session) rememberPrepared(stmt, keyspace string, info *preparedInfo) {
	s.preparedText.Store(stmt, &textPrepared{keyspace: keyspace, info: info})
}
