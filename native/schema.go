package native

import (
	"context"
	"fmt"
	"time"
)

// AwaitSchemaAgreement waits until every node the control connection knows reports the same
// schema version (system.local and system.peers), polling every 200 ms, or until ctx ends.
// Call it after DDL before relying on the change from other nodes.
func (s *Session) AwaitSchemaAgreement(ctx context.Context) error {
	if s.closed.Load() {
		return ErrSessionClosed
	}
	for {
		versions, err := s.schemaVersions(ctx)
		if err == nil && len(versions) <= 1 {
			return nil
		}
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			if err != nil {
				return fmt.Errorf("native: awaiting schema agreement: %w (last error: %w)", ctx.Err(), err)
			}
			return fmt.Errorf("native: awaiting schema agreement: %w (versions %v)", ctx.Err(), versions)
		case <-t.C:
		}
	}
}

// schemaVersions returns the distinct schema versions reported by the local node and its
// peers.
func (s *Session) schemaVersions(ctx context.Context) (map[string]bool, error) {
	s.control.mu.Lock()
	c := s.control.c
	s.control.mu.Unlock()
	if c == nil {
		return nil, fmt.Errorf("native: no control connection")
	}
	versions := map[string]bool{}
	for _, q := range []string{"SELECT schema_version FROM system.local WHERE key = 'local'", "SELECT schema_version FROM system.peers"} {
		res, err := s.runOn(ctx, c, q)
		if err != nil {
			return nil, err
		}
		for _, row := range res.Rows() {
			if v := cellUUID(row, "schema_version"); v != "" {
				versions[v] = true
			}
		}
	}
	return versions, nil
}
