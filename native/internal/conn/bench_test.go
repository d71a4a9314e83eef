package conn

import (
	"context"
	"testing"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// int32Writer writes one int value straight into the frame, as the session's encoders do.
type int32Writer struct{ v int32 }

func (w *int32Writer) WriteValues(dst []byte) ([]byte, int, error) {
	dst = proto.AppendInt(dst, 4)
	return proto.AppendInt(dst, w.v), 1, nil
}

// BenchmarkConnDo measures one prepared single-row read (an int and a text column) through
// Do: encoding, the writer and reader goroutines, and in-place decoding with skip_metadata.
func BenchmarkConnDo(b *testing.B) {
	ks, hosts := keyspace(b)
	exec(b, hosts[0], "CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v text)")
	exec(b, hosts[0], "INSERT INTO "+ks+".kv (k, v) VALUES (1, 'one')")
	c := dialT(b, Config{Keyspace: ks})
	sel := prepare(b, c, "SELECT k, v FROM kv WHERE k = ?")
	w := &int32Writer{v: 1}
	req := &proto.Execute{ID: sel.ID, Params: proto.QueryParams{Consistency: proto.One, Values: w, SkipMetadata: true}}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := c.Do(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		rows := resp.Msg.(*proto.RowsResult)
		if !rows.Next() || len(rows.Cell(1)) != 3 {
			b.Fatal("unexpected row")
		}
		resp.Release()
	}
}

// BenchmarkConnDoParallel is BenchmarkConnDo from many goroutines sharing one connection,
// where the writer batches queued frames into single writes.
func BenchmarkConnDoParallel(b *testing.B) {
	ks, hosts := keyspace(b)
	exec(b, hosts[0], "CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v text)")
	exec(b, hosts[0], "INSERT INTO "+ks+".kv (k, v) VALUES (1, 'one')")
	c := dialT(b, Config{Keyspace: ks})
	sel := prepare(b, c, "SELECT k, v FROM kv WHERE k = ?")
	b.ReportAllocs()
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := &int32Writer{v: 1}
		req := &proto.Execute{ID: sel.ID, Params: proto.QueryParams{Consistency: proto.One, Values: w, SkipMetadata: true}}
		for pb.Next() {
			resp, err := c.Do(context.Background(), req)
			if err != nil {
				b.Error(err)
				return
			}
			resp.Release()
		}
	})
}
