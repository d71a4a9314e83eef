package native

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cqlbridge/cqlbridge/native/internal/conn"
)

// schemaAgreementPoll is how often the schema versions are read while waiting for agreement.
const schemaAgreementPoll = 200 * time.Millisecond

// errNoControl is the error of a schema agreement check without a control connection.
var errNoControl = errors.New("native: no control connection")

// AwaitSchemaAgreement waits until the control connection's node and every peer it lists in
// system.peers (rows with a host_id and tokens, as in the topology) report the same schema
// version, polling every 200 ms, or until ctx ends, or until the session is closed
// (ErrSessionClosed). Peers the session knows to be down (no open connection after a failed
// dial or a lost connection) are not waited for; peers it does not track (HostFilter,
// DisablePeerDiscovery) are, since they may hold replicas. Execute already waits after DDL (Config.SchemaAgreementTimeout);
// call this after DDL run with the wait disabled, or run on another session.
func (s *Session) AwaitSchemaAgreement(ctx context.Context) error {
	if err := s.usable(); err != nil {
		return err
	}
	if ctx == nil {
		return errNilContext
	}
	return s.awaitAgreement(ctx, "", false)
}

// awaitAfterSchemaChange waits for schema agreement after res, a schema change, within
// Config.SchemaAgreementTimeout and ctx, and records in res whether it was reached. It asks
// the coordinator of the change: the other nodes may not have heard of it yet, and asked
// first, they could all agree on the schema before it. Without a connection to the
// coordinator or the control connection there is nobody to ask, and it returns at once.
func (s *Session) awaitAfterSchemaChange(ctx context.Context, res *Result) {
	wait := s.cfg.SchemaAgreementTimeout
	if wait < 0 {
		res.disagreed = true
		return
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	res.disagreed = s.awaitAgreement(ctx, res.host, true) != nil
}

// awaitAgreement polls schemaVersions(ctx, addr) every schemaAgreementPoll until the versions
// agree (it returns nil), ctx ends, or the session is closed (ErrSessionClosed: nothing can
// agree for it any more). With giveUp it also stops, with an error, as soon as there is no
// connection to ask.
func (s *Session) awaitAgreement(ctx context.Context, addr string, giveUp bool) error {
	for {
		versions, err := s.schemaVersions(ctx, addr)
		if err == nil && len(versions) <= 1 {
			return nil
		}
		if s.closed.Load() {
			return ErrSessionClosed
		}
		if giveUp && errors.Is(err, errNoControl) {
			return err
		}
		t := time.NewTimer(schemaAgreementPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			if err != nil {
				return fmt.Errorf("native: awaiting schema agreement: %w (last error: %w)", ctx.Err(), err)
			}
			return fmt.Errorf("native: awaiting schema agreement: %w (versions %v)", ctx.Err(), versions)
		case <-s.ctx.Done(): // Close
			t.Stop()
			return ErrSessionClosed
		case <-t.C:
		}
	}
}

// schemaVersions returns the distinct schema versions reported by a node and by the peers it
// lists that the session does not know to be down. The node is addr when the session has an
// open connection to it, else the control connection's.
func (s *Session) schemaVersions(ctx context.Context, addr string) (map[string]bool, error) {
	var c *conn.Conn
	down := map[string]bool{} // the nodes known to be down, by host id
	if st := s.state.Load(); st != nil {
		for i, n := range st.snap.Nodes {
			if n.HostID != "" && st.pools[i].down() {
				down[n.HostID] = true
			}
			if addr != "" && n.Addr == addr && c == nil {
				c, _ = st.pools[i].pick()
			}
		}
	}
	if c == nil {
		s.control.mu.Lock()
		c = s.control.c
		s.control.mu.Unlock()
	}
	if c == nil {
		return nil, errNoControl
	}
	versions := map[string]bool{}
	res, err := s.runOn(ctx, c, "SELECT schema_version FROM system.local WHERE key = 'local'")
	if err != nil {
		return nil, err
	}
	for _, row := range res.Rows() {
		if v := cellUUID(row, "schema_version"); v != "" {
			versions[v] = true
		}
	}
	if res, err = s.runOn(ctx, c, "SELECT host_id, schema_version, tokens FROM system.peers"); err != nil {
		return nil, err
	}
	for _, row := range res.Rows() {
		id := cellUUID(row, "host_id")
		if id == "" || len(cellTexts(row, "tokens")) == 0 {
			continue // not a node: a row half-written or left behind (see validPeer)
		}
		if down[id] {
			continue // its schema version stays what it was when it went down
		}
		if v := cellUUID(row, "schema_version"); v != "" {
			versions[v] = true
		}
	}
	return versions, nil
}
