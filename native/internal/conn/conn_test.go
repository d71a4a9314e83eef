package conn

import (
	"context"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

func dialT(t testing.TB, cfg Config) *Conn {
	t.Helper()
	host := cqltest.Hosts(t)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, host, cfg)
	if err != nil {
		t.Fatalf("Dial(%s): %v", host, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestQuerySystemLocal(t *testing.T) {
	c := dialT(t, Config{})
	if len(c.Supported()["CQL_VERSION"]) == 0 {
		t.Errorf("Supported() = %v, want CQL_VERSION", c.Supported())
	}
	resp, err := c.Do(context.Background(), &proto.Query{
		Query:  "SELECT key, cluster_name, release_version FROM system.local WHERE key = 'local'",
		Params: proto.QueryParams{Consistency: proto.One},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Release()
	rows, ok := resp.Msg.(*proto.RowsResult)
	if !ok {
		t.Fatalf("Msg = %T, want *proto.RowsResult", resp.Msg)
	}
	if rows.RowCount != 1 || rows.Metadata.ColumnCount != 3 {
		t.Fatalf("got %d rows of %d columns, want 1 of 3", rows.RowCount, rows.Metadata.ColumnCount)
	}
	cols := rows.Metadata.Columns
	if cols[0].Keyspace != "system" || cols[0].Table != "local" || cols[0].Name != "key" || cols[1].Name != "cluster_name" {
		t.Errorf("columns = %+v", cols)
	}
	if got := cols[2].Type.String(); got != "text" && got != "varchar" {
		t.Errorf("release_version type = %s, want text", got)
	}
	if !rows.Next() {
		t.Fatal("Next() = false on the first row")
	}
	if got := string(rows.Cell(0)); got != "local" {
		t.Errorf("key = %q, want local", got)
	}
	if len(rows.Cell(2)) == 0 || rows.Cell(2)[0] < '0' || rows.Cell(2)[0] > '9' {
		t.Errorf("release_version = %q, want a version number", rows.Cell(2))
	}
	if rows.Next() {
		t.Error("Next() = true after the only row")
	}
}
