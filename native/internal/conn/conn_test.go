package conn

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"sync"
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

// exec runs set-up CQL through cqltest, whose DDL waits for schema agreement, independently
// of the code under test.
func exec(t testing.TB, host, cql string) {
	t.Helper()
	cqltest.Exec(t, host, cql)
}

// keyspace creates a unique keyspace for the test and drops it at cleanup.
func keyspace(t testing.TB) (ks string, hosts []string) {
	t.Helper()
	hosts = cqltest.Hosts(t)
	ks = cqltest.KeyspaceName(t)
	exec(t, hosts[0], "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	t.Cleanup(func() { exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	return ks, hosts
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

func prepare(t testing.TB, c *Conn, q string) *proto.PreparedResult {
	t.Helper()
	resp, err := c.Do(context.Background(), &proto.Prepare{Query: q})
	if err != nil {
		t.Fatalf("PREPARE %q: %v", q, err)
	}
	defer resp.Release()
	p, ok := resp.Msg.(*proto.PreparedResult)
	if !ok {
		t.Fatalf("PREPARE %q: Msg = %T", q, resp.Msg)
	}
	return p
}

func int32Value(v int32) []byte { return proto.AppendInt(nil, v) }

func TestPrepareExecute(t *testing.T) {
	ks, hosts := keyspace(t)
	exec(t, hosts[0], "CREATE TABLE "+ks+".kv (k int, c int, v text, PRIMARY KEY (k, c))")
	c := dialT(t, Config{Keyspace: ks})

	ins := prepare(t, c, "INSERT INTO kv (k, c, v) VALUES (?, ?, ?)")
	if len(ins.Bind) != 3 || ins.Bind[0].Name != "k" || ins.Bind[2].Type.String() != "text" || ins.Bind[0].Keyspace != ks || ins.Bind[0].Table != "kv" {
		t.Fatalf("insert bind metadata = %+v", ins.Bind)
	}
	if len(ins.PKIndexes) != 1 || ins.PKIndexes[0] != 0 {
		t.Errorf("PKIndexes = %v, want [0]", ins.PKIndexes)
	}
	if ins.Result.Columns != nil {
		t.Errorf("insert result columns = %+v, want none", ins.Result.Columns)
	}
	for i := int32(0); i < 5; i++ {
		resp, err := c.Do(context.Background(), &proto.Execute{ID: ins.ID, Params: proto.QueryParams{
			Consistency: proto.One,
			Values:      proto.Values{int32Value(7), int32Value(i), []byte("value " + string(rune('a'+i)))},
		}})
		if err != nil {
			t.Fatalf("EXECUTE insert %d: %v", i, err)
		}
		if _, ok := resp.Msg.(*proto.VoidResult); !ok {
			t.Errorf("insert result = %T, want VoidResult", resp.Msg)
		}
		resp.Release()
	}
	// A NULL value through the unset/null helpers.
	resp, err := c.Do(context.Background(), &proto.Execute{ID: ins.ID, Params: proto.QueryParams{
		Consistency: proto.One, Values: proto.Values{int32Value(8), int32Value(0), nil},
	}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Release()

	sel := prepare(t, c, "SELECT c, v FROM kv WHERE k = ?")
	if len(sel.Result.Columns) != 2 || sel.Result.Columns[1].Name != "v" {
		t.Fatalf("select result metadata = %+v", sel.Result.Columns)
	}
	// Page through with page size 2 and skip_metadata, as a session would.
	var got []string
	var paging []byte
	for page := 0; ; page++ {
		resp, err := c.Do(context.Background(), &proto.Execute{ID: sel.ID, Params: proto.QueryParams{
			Consistency: proto.One, Values: proto.Values{int32Value(7)}, SkipMetadata: true,
			PageSize: 2, PagingState: paging,
		}})
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		rows := resp.Msg.(*proto.RowsResult)
		if rows.Metadata.Columns != nil || rows.Metadata.ColumnCount != 2 {
			t.Errorf("page %d: metadata %+v, want no columns and a count of 2", page, rows.Metadata)
		}
		for rows.Next() {
			got = append(got, string(rows.Cell(1)))
		}
		if !rows.Metadata.HasMorePages() {
			resp.Release()
			break
		}
		paging = append([]byte(nil), rows.Metadata.PagingState...)
		resp.Release()
		if page > 10 {
			t.Fatal("paging does not end")
		}
	}
	want := []string{"value a", "value b", "value c", "value d", "value e"}
	if len(got) != len(want) {
		t.Fatalf("rows = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %q, want %q", i, got[i], want[i])
		}
	}

	// NULL reads back as a nil cell.
	resp, err = c.Do(context.Background(), &proto.Execute{ID: sel.ID, Params: proto.QueryParams{
		Consistency: proto.One, Values: proto.Values{int32Value(8)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rows := resp.Msg.(*proto.RowsResult)
	if !rows.Next() || rows.Cell(1) != nil || rows.Cell(0) == nil {
		t.Errorf("NULL row: cells %q", rows.Row())
	}
	resp.Release()
}

func TestNamedValuesAndTimestamp(t *testing.T) {
	ks, hosts := keyspace(t)
	exec(t, hosts[0], "CREATE TABLE "+ks+".t (k int PRIMARY KEY, v text)")
	c := dialT(t, Config{Keyspace: ks})
	resp, err := c.Do(context.Background(), &proto.Query{
		Query: "INSERT INTO t (k, v) VALUES (:k, :v)",
		Params: proto.QueryParams{
			Consistency: proto.One, NamedValues: true,
			Values:    proto.NamedValues{{Name: "v", Value: []byte("named")}, {Name: "k", Value: int32Value(1)}},
			Timestamp: 1234567, HasTimestamp: true,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp.Release()
	resp, err = c.Do(context.Background(), query("SELECT v, writetime(v) FROM t WHERE k = 1"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Release()
	rows := resp.Msg.(*proto.RowsResult)
	if !rows.Next() {
		t.Fatal("no row")
	}
	if string(rows.Cell(0)) != "named" {
		t.Errorf("v = %q, want named", rows.Cell(0))
	}
	if wt := rows.Cell(1); len(wt) != 8 || int64(binary.BigEndian.Uint64(wt)) != 1234567 {
		t.Errorf("writetime = %x, want 1234567", wt)
	}
}

func TestServerErrors(t *testing.T) {
	ks, hosts := keyspace(t)
	exec(t, hosts[0], "CREATE TABLE "+ks+".t (k int PRIMARY KEY)")
	c := dialT(t, Config{})
	cases := []struct {
		name  string
		req   proto.Request
		code  proto.ErrorCode
		check func(e *proto.ErrorResponse) bool
	}{
		{"syntax", query("SELEKT nothing"), proto.ErrCodeSyntax, nil},
		{"invalid", query("SELECT * FROM " + ks + ".missing"), proto.ErrCodeInvalid, nil},
		{"already exists table", query("CREATE TABLE " + ks + ".t (k int PRIMARY KEY)"), proto.ErrCodeAlreadyExists,
			func(e *proto.ErrorResponse) bool { return e.Keyspace == ks && e.Table == "t" }},
		{"already exists keyspace", query("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"), proto.ErrCodeAlreadyExists,
			func(e *proto.ErrorResponse) bool { return e.Keyspace == ks && e.Table == "" }},
		{"unprepared", &proto.Execute{ID: []byte{0xde, 0xad, 0xbe, 0xef}, Params: proto.QueryParams{Consistency: proto.One}}, proto.ErrCodeUnprepared,
			func(e *proto.ErrorResponse) bool { return string(e.UnpreparedID) == "\xde\xad\xbe\xef" }},
		{"unavailable", query("INSERT INTO " + ks + ".t (k) VALUES (1)"), 0, nil},
	}
	cases[len(cases)-1].req.(*proto.Query).Params.Consistency = proto.Three
	cases[len(cases)-1].code = proto.ErrCodeUnavailable
	cases[len(cases)-1].check = func(e *proto.ErrorResponse) bool {
		return e.Consistency == proto.Three && e.Required == 3 && e.Alive == 1
	}
	if !realServer() {
		cases = cases[:len(cases)-1] // the embedded server ignores consistency levels
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := c.Do(context.Background(), tc.req)
			if resp != nil {
				t.Errorf("got a response with the error")
			}
			var e *proto.ErrorResponse
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *proto.ErrorResponse", err)
			}
			if e.Code != tc.code || e.Message == "" {
				t.Errorf("code = %s (%q), want %s", e.Code, e.Message, tc.code)
			}
			if tc.check != nil && !tc.check(e) {
				t.Errorf("fields of %+v are wrong", e)
			}
		})
	}
	if c.Err() != nil {
		t.Errorf("server errors closed the connection: %v", c.Err())
	}
}

func TestManyConcurrentRequests(t *testing.T) {
	c := dialT(t, Config{})
	const n = 5000
	q := query("SELECT release_version FROM system.local WHERE key = 'local'")
	calls := make([]*Call, 0, n)
	for i := 0; i < n; i++ {
		call, err := c.Start(context.Background(), q)
		if err != nil {
			t.Fatalf("Start %d: %v", i, err)
		}
		calls = append(calls, call)
	}
	streams := make(map[int16]bool, n)
	for i, call := range calls {
		if streams[call.Stream()] {
			t.Fatalf("stream %d used twice while in flight", call.Stream())
		}
		streams[call.Stream()] = true
		<-call.Done()
		call.Received()
		resp, err := call.Response()
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if rows, ok := resp.Msg.(*proto.RowsResult); !ok || rows.RowCount != 1 {
			t.Fatalf("call %d: %T", i, resp.Msg)
		}
		call.Release()
	}
	if got := c.InFlight(); got != 0 {
		t.Errorf("InFlight = %d after all responses, want 0", got)
	}
}

func TestStreamExhaustionWaits(t *testing.T) {
	c := dialT(t, Config{MaxStreams: 3})
	const workers, each = 32, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				resp, err := c.Do(context.Background(), query("SELECT key FROM system.local"))
				if err != nil {
					errs <- err
					return
				}
				resp.Release()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("request with all streams busy: %v", err)
	}
	if got := c.InFlight(); got != 0 {
		t.Errorf("InFlight = %d, want 0", got)
	}
}

func TestCompression(t *testing.T) {
	for _, alg := range []string{"lz4", "snappy"} {
		t.Run(alg, func(t *testing.T) {
			ks, hosts := keyspace(t)
			exec(t, hosts[0], "CREATE TABLE "+ks+".blobs (k int PRIMARY KEY, v text)")
			c := dialT(t, Config{Compression: alg, Keyspace: ks})
			big := strings.Repeat("compressible text ", 20000)
			resp, err := c.Do(context.Background(), &proto.Query{Query: "INSERT INTO blobs (k, v) VALUES (?, ?)", Params: proto.QueryParams{
				Consistency: proto.One, Values: proto.Values{int32Value(1), []byte(big)},
			}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Release()
			resp, err = c.Do(context.Background(), query("SELECT v FROM blobs WHERE k = 1"))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Release()
			if realServer() && resp.Header.Flags&proto.FlagCompression == 0 {
				t.Errorf("response not compressed")
			}
			rows := resp.Msg.(*proto.RowsResult)
			if !rows.Next() || string(rows.Cell(0)) != big {
				t.Errorf("read back %d bytes, want the %d written", len(rows.Cell(0)), len(big))
			}
		})
	}
}

func TestSchemaChangeEvents(t *testing.T) {
	ks, hosts := keyspace(t)
	events := make(chan proto.Event, 16)
	c := dialT(t, Config{OnEvent: func(e proto.Event) { events <- e }})
	if err := c.Register(context.Background(), proto.EventSchemaChange, proto.EventStatusChange, proto.EventTopologyChange); err != nil {
		t.Fatal(err)
	}
	exec(t, hosts[0], "CREATE TABLE "+ks+".evt (k int PRIMARY KEY)")
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e := <-events:
			if e.Type == proto.EventSchemaChange && e.Schema.Target == "TABLE" && e.Schema.Keyspace == ks && e.Schema.Name == "evt" {
				if e.Change != "CREATED" {
					t.Errorf("change = %q, want CREATED", e.Change)
				}
				return
			}
		case <-deadline:
			t.Fatal("no SCHEMA_CHANGE event for the new table")
		}
	}
}

func TestSchemaChangeResult(t *testing.T) {
	ks, _ := keyspace(t)
	c := dialT(t, Config{})
	resp, err := c.Do(context.Background(), query("CREATE TABLE "+ks+".sc (k int PRIMARY KEY)"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Release()
	sc, ok := resp.Msg.(*proto.SchemaChangeResult)
	if !ok || sc.Change != "CREATED" || sc.Target != "TABLE" || sc.Keyspace != ks || sc.Name != "sc" {
		t.Fatalf("Msg = %#v", resp.Msg)
	}
}

func TestTracingAndWarnings(t *testing.T) {
	ks, hosts := keyspace(t)
	exec(t, hosts[0], "CREATE TABLE "+ks+".t (k int PRIMARY KEY, v int)")
	c := dialT(t, Config{})
	q := query("SELECT key FROM system.local")
	q.Tracing = true
	resp, err := c.Do(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.HasTracingID || resp.TracingID == [16]byte{} {
		t.Errorf("traced query: no tracing id")
	}
	resp.Release()
	if !realServer() {
		return // cqlsim traces but does not warn about batches
	}
	// An unlogged batch spanning partitions draws a warning.
	b := &proto.Batch{Type: proto.UnloggedBatch, Consistency: proto.One}
	for i := 0; i < 20; i++ {
		b.Statements = append(b.Statements, proto.BatchStatement{Query: "INSERT INTO " + ks + ".t (k, v) VALUES (?, ?)", Values: proto.Values{int32Value(int32(i)), int32Value(1)}})
	}
	resp, err = c.Do(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Release()
	if len(resp.Warnings) == 0 {
		t.Errorf("unlogged multi-partition batch: no warnings")
	}
}

func TestHeartbeatKeepsIdleConnectionOpen(t *testing.T) {
	c := dialT(t, Config{HeartbeatInterval: 10 * time.Millisecond, HeartbeatTimeout: 30 * time.Second})
	start := c.frames.Load()
	// Only heartbeats produce frames on this idle connection; wait for a few.
	deadline := time.After(60 * time.Second)
	for c.frames.Load() < start+3 {
		select {
		case <-deadline:
			t.Fatal("no heartbeat answered")
		case <-c.Done():
			t.Fatalf("connection closed: %v", c.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := c.Err(); err != nil {
		t.Fatalf("connection closed: %v", err)
	}
}

func TestLargeFrames(t *testing.T) {
	ks, hosts := keyspace(t)
	exec(t, hosts[0], "CREATE TABLE "+ks+".big (k int PRIMARY KEY, v blob)")
	c := dialT(t, Config{Keyspace: ks})
	big := make([]byte, 3<<20) // larger than the reader's chunk and the writer's batch limit
	for i := range big {
		big[i] = byte(i * 31)
	}
	resp, err := c.Do(context.Background(), &proto.Query{Query: "INSERT INTO big (k, v) VALUES (1, ?)", Params: proto.QueryParams{
		Consistency: proto.One, Values: proto.Values{big},
	}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Release()
	resp, err = c.Do(context.Background(), query("SELECT v FROM big WHERE k = 1"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Release()
	rows := resp.Msg.(*proto.RowsResult)
	if !rows.Next() || !bytes.Equal(rows.Cell(0), big) {
		t.Errorf("read back %d bytes, want the %d written", len(rows.Cell(0)), len(big))
	}
}

func TestKeyspaceTracking(t *testing.T) {
	ks, _ := keyspace(t)
	c := dialT(t, Config{Keyspace: ks})
	if got := c.Keyspace(); got != ks {
		t.Errorf("Keyspace() after Dial = %q, want %q", got, ks)
	}
	if err := c.UseKeyspace(context.Background(), "system"); err != nil {
		t.Fatal(err)
	}
	if got := c.Keyspace(); got != "system" {
		t.Errorf("Keyspace() after UseKeyspace = %q, want system", got)
	}
	resp, err := c.Do(context.Background(), query("USE "+ks))
	if err != nil {
		t.Fatal(err)
	}
	resp.Release()
	if got := c.Keyspace(); got != ks {
		t.Errorf("Keyspace() after a USE query = %q, want %q", got, ks)
	}
	err = c.UseKeyspace(context.Background(), "no_such_keyspace_here")
	var e *proto.ErrorResponse
	if !errors.As(err, &e) || e.Code != proto.ErrCodeInvalid {
		t.Errorf("USE of a missing keyspace: err = %v, want an Invalid server error", err)
	}
	if c.LocalAddr() == nil {
		t.Error("LocalAddr() = nil")
	}
}

// TestContextEndsWhileWaitingForAStreamID: the error says what the request was waiting for
// and still matches the context's error.
func TestContextEndsWhileWaitingForAStreamID(t *testing.T) {
	release := make(chan struct{})
	s := startSlowFake(t, release)
	c := dialFake(t, s, Config{MaxStreams: 1})
	slow, err := c.Start(context.Background(), query("slow"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		close(release)
		<-slow.Done()
		slow.Received()
		slow.Release()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = c.Do(ctx, query("fast"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Do with every stream id taken: %v, want context.DeadlineExceeded", err)
	}
	if want := "waiting for a free stream id (all 1 in use)"; !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
}
