package engine

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"
)

// vecVal encodes a vector<float, n> bind value.
func vecVal(xs ...float32) Value {
	var b []byte
	for _, x := range xs {
		b = binary.BigEndian.AppendUint32(b, math.Float32bits(x))
	}
	return Value{Bytes: b}
}

// setupANN makes a table with a storage-attached index on its vector (cosine by default) and a
// second one on n, and rows of known similarity to [1, 0, 0]: 1 (k=1 c=1 and k=3 c=1, a tie),
// 0.854 (k=1 c=3), 0.789 (k=2 c=1), 0.5 (k=1 c=2), 0 (k=2 c=2); k=2 c=3 has no vector and k=4
// only a static value.
func setupANN(t *testing.T) *testEngine {
	te := setupKS(t)
	te.mustExec("CREATE TABLE v (k int, c int, v vector<float, 3>, n int, t text, s int static, PRIMARY KEY (k, c))")
	te.mustExec("CREATE CUSTOM INDEX ON v (v) USING 'StorageAttachedIndex'")
	te.mustExec("CREATE INDEX ON v (n) USING 'sai'")
	for _, q := range []string{
		"INSERT INTO v (k, c, v, n, t, s) VALUES (1, 1, [1.0, 0.0, 0.0], 10, 'a', 7)",
		"INSERT INTO v (k, c, v, n, t) VALUES (1, 2, [0.0, 1.0, 0.0], 20, 'b')",
		"INSERT INTO v (k, c, v, n, t) VALUES (1, 3, [0.5, 0.5, 0.0], 30, 'c')",
		"INSERT INTO v (k, c, v, n, t) VALUES (2, 1, [1.0, 1.0, 1.0], 10, 'd')",
		"INSERT INTO v (k, c, v, n, t) VALUES (2, 2, [-1.0, 0.0, 0.0], 20, 'e')",
		"INSERT INTO v (k, c, n, t) VALUES (2, 3, 30, 'no vector')",
		"INSERT INTO v (k, c, v, n, t) VALUES (3, 1, [2.0, 0.0, 0.0], 40, 'f')",
		"INSERT INTO v (k, s) VALUES (4, 9)",
	} {
		te.mustExec(q)
	}
	return te
}

// TestANNOrdering: ORDER BY v ANN OF [...] LIMIT n returns the rows whose vector is set, most
// similar first (rows of equal similarity in token, then clustering, order), at most n, with
// the columns of an ordinary SELECT, restricted by the partition key, a clustering prefix or
// SAI-indexed columns; a literal, a cast or bind markers (the vector typed as the column, the
// limit as [limit]); all rows in one page whatever the page size, as Cassandra 5.0 answers.
func TestANNOrdering(t *testing.T) {
	te := setupANN(t)
	for _, c := range []struct {
		q    string
		vals []Value
		want []string
	}{
		{"SELECT k, c, t FROM v ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 10", nil,
			[]string{"1|1|'a'", "3|1|'f'", "1|3|'c'", "2|1|'d'", "1|2|'b'", "2|2|'e'"}},
		{"SELECT k, c FROM v ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 3", nil, []string{"1|1", "3|1", "1|3"}},
		{"SELECT k, c FROM v ORDER BY v ann of (vector<float, 3>) [1, 0, 0] asc limit 1", nil, []string{"1|1"}},
		{"SELECT k, c FROM v ORDER BY v ANN OF ? LIMIT ?", []Value{vecVal(0, 1, 0), intVal(2)}, []string{"1|2", "1|3"}},
		{"SELECT k, c FROM v WHERE k = ? ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 5", []Value{intVal(2)}, []string{"2|1", "2|2"}},
		{"SELECT k, c FROM v WHERE k = 1 AND c > 1 ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 5", nil, []string{"1|3", "1|2"}},
		{"SELECT k, c FROM v WHERE k = 9 ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 5", nil, []string{}},
		{"SELECT k, c FROM v WHERE n = 10 ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 5", nil, []string{"1|1", "2|1"}},
		{"SELECT k, c FROM v WHERE n > 10 ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 5 ALLOW FILTERING", nil, []string{"3|1", "1|3", "1|2", "2|2"}},
		{"SELECT JSON k, c FROM v ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 1", nil, []string{`'{"k": 1, "c": 1}'`}},
	} {
		if got := te.rows(c.q, c.vals...); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.q, got, c.want)
		}
	}
	r := te.mustExec("SELECT * FROM v ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 2")
	if got := colNames(r); got != "k,c,s,n,t,v" {
		t.Errorf("SELECT * columns: %s", got)
	}
	if got := render(r); !slices.Equal(got, []string{"1|1|7|10|'a'|0x3f8000000000000000000000", "3|1|null|40|'f'|0x400000000000000000000000"}) {
		t.Errorf("SELECT * rows: %q", got)
	}
	rows, pages := te.page("SELECT k, c FROM v ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 2", 2)
	if pages != 1 || len(rows) != 2 {
		t.Errorf("paged by 2, LIMIT 2: %q in %d pages", rows, pages)
	}
	r, err := te.Execute(&Request{Consistency: 1, Keyspace: te.ks, Query: "SELECT k, c FROM v ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 5", PageSize: 2})
	if err != nil || len(r.Rows) != 5 || r.PagingState != nil {
		t.Errorf("page size 2, LIMIT 5: %v, %d rows, paging state %x; want 5 rows in one page", err, len(r.Rows), r.PagingState)
	}
	p, err := te.Prepare("ks", "SELECT k FROM v WHERE k = ? ORDER BY v ANN OF :q LIMIT ?")
	if err != nil {
		t.Fatal(err)
	}
	var vars []string
	for _, v := range p.Vars {
		vars = append(vars, v.Name+" "+v.Type.AsCql())
	}
	if want := "k int,q 'org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)',[limit] int"; strings.Join(vars, ",") != want {
		t.Errorf("bind variables %q, want %q", strings.Join(vars, ","), want)
	}
}

// TestANNSimilarityFunction: the index's similarity_function option (cosine by default,
// euclidean, dot_product in any case) orders the rows, and is listed in system_schema.indexes
// with the class as written.
func TestANNSimilarityFunction(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE e (k int PRIMARY KEY, v vector<float, 2>)")
	te.mustExec("CREATE TABLE d (k int PRIMARY KEY, v vector<float, 2>)")
	te.mustExec("CREATE INDEX ON e (v) USING 'sai' WITH OPTIONS = {'similarity_function': 'euclidean'}")
	te.mustExec("CREATE INDEX ON d (v) USING 'sai' WITH OPTIONS = {'similarity_function': 'DOT_PRODUCT'}")
	for i, v := range []string{"[1.0, 0.0]", "[3.0, 0.0]", "[10.0, 0.0]", "[0.0, 1.0]"} {
		te.mustExec("INSERT INTO e (k, v) VALUES (?, "+v+")", intVal(int32(i+1)))
	}
	for i, v := range []string{"[0.6, 0.8]", "[0.8, 0.6]", "[1.0, 0.0]"} {
		te.mustExec("INSERT INTO d (k, v) VALUES (?, "+v+")", intVal(int32(i+1)))
	}
	// euclidean from [2, 0]: k=1 and k=2 at 1 (a tie, in token order), k=4 at √5, k=3 at 8;
	// cosine would put k=3 first
	if got := te.rows("SELECT k FROM e ORDER BY v ANN OF [2.0, 0.0] LIMIT 10"); !slices.Equal(got, []string{"1", "2", "4", "3"}) {
		t.Errorf("euclidean: %q", got)
	}
	if got := te.rows("SELECT k FROM d ORDER BY v ANN OF [0.0, 1.0] LIMIT 10"); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("dot product: %q", got)
	}
	got := te.rows("SELECT table_name, options FROM system_schema.indexes WHERE keyspace_name = 'ks'")
	want := []string{"'d'|{'class_name': 'sai', 'similarity_function': 'DOT_PRODUCT', 'target': 'v'}", "'e'|{'class_name': 'sai', 'similarity_function': 'euclidean', 'target': 'v'}"}
	if !slices.Equal(got, want) {
		t.Errorf("indexes: %q, want %q", got, want)
	}
}

// TestANNErrors: Cassandra 5.0.9's answers (code and message) to vector searches it refuses,
// and to the index options it refuses.
func TestANNErrors(t *testing.T) {
	te := setupANN(t)
	te.mustExec("CREATE TABLE noidx (k int PRIMARY KEY, v vector<float, 2>)")
	te.mustExec("CREATE TABLE iv (k int PRIMARY KEY, v vector<int, 2>, l list<float>)")
	te.mustExec("CREATE TABLE leg (k int PRIMARY KEY, v vector<float, 2>)")
	te.mustExec("CREATE INDEX ON leg (v)")
	te.mustExec("CREATE TABLE m (k1 int, k2 int, c1 int, c2 int, v vector<float, 2>, PRIMARY KEY ((k1, k2), c1, c2))")
	te.mustExec("CREATE INDEX ON m (v) USING 'sai'")
	const q = "SELECT k, c FROM v ORDER BY v ANN OF [1.0, 0.0, 0.0]"
	te.wantInvalid(map[string]string{
		q:                                        "Top-K queries must have a limit specified and the limit must be less than the query page size",
		q + " LIMIT 1001":                        "Use of ANN OF in an ORDER BY clause requires a LIMIT that is not greater than 1000. LIMIT was 1001",
		q + " LIMIT 0":                           "LIMIT must be strictly positive",
		q + " DESC LIMIT 1":                      "Descending ANN ordering is not supported",
		q + ", c ASC LIMIT 1":                    "ANN ordering does not support any other ordering",
		q + ", v ANN OF [0.0, 1.0, 0.0] LIMIT 1": "Cannot specify more than one ANN ordering",
		q + " PER PARTITION LIMIT 1 LIMIT 1":     "Top-K queries do not support per-partition limits",
		"SELECT count(*) FROM v ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 1":                          "Top-K queries can not be run with aggregation",
		"SELECT k, count(c) FROM v GROUP BY k ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 1":            "Top-K queries can not be run with aggregation",
		"SELECT DISTINCT k FROM v ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 1":                        "SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.",
		"SELECT k FROM v ORDER BY v ANN OF [1.0, 0.0] LIMIT 1":                                      "Invalid vector literal for v of type vector<float, 3>; expected 3 elements, but given 2",
		"SELECT k FROM v ORDER BY v ANN OF [1.0, 'x', 0.0] LIMIT 1":                                 "Invalid vector literal for v: value 'x' is not of type float",
		"SELECT k FROM v ORDER BY v ANN OF [1.0, null, 0.0] LIMIT 1":                                "null is not supported inside vectors",
		"SELECT k FROM v ORDER BY v ANN OF null LIMIT 1":                                            "Unsupported null value for column v",
		"SELECT k FROM v ORDER BY v ANN OF 'abc' LIMIT 1":                                           `Invalid STRING constant (abc) for "v" of type vector<float, 3>`,
		"SELECT k FROM v ORDER BY n ANN OF [1.0, 0.0, 0.0] LIMIT 1":                                 "Unexpected receiver type 'int'; only list and vector are expected",
		"SELECT k FROM v ORDER BY nosuch ANN OF [1.0, 0.0, 0.0] LIMIT 1":                            "Undefined column name nosuch in table ks.v",
		"SELECT k FROM v WHERE t = 'a' ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 1 ALLOW FILTERING":   "ANN ordering by vector requires all restricted column(s) to be indexed",
		"SELECT k FROM v WHERE c = 1 ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 1":                     "ANN ordering by vector requires all restricted column(s) to be indexed",
		"SELECT k FROM v WHERE k IN (1, 2) ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 1":               "Select on indexed columns and with IN clause for the PRIMARY KEY are not supported",
		"SELECT k FROM v WHERE v = [1.0, 0.0, 0.0] LIMIT 1":                                         "Vector indexes only support ANN queries",
		"SELECT k1 FROM m WHERE k1 = 1 ORDER BY v ANN OF [1.0, 0.0] LIMIT 1 ALLOW FILTERING":        "ANN ordering by vector requires all restricted column(s) to be indexed",
		"SELECT k1 FROM m WHERE k1 = 1 AND k2 = 1 AND c2 = 1 ORDER BY v ANN OF [1.0, 0.0] LIMIT 1":  "ANN ordering by vector requires all restricted column(s) to be indexed",
		"SELECT k FROM noidx ORDER BY v ANN OF [1.0, 0.0] LIMIT 1 ALLOW FILTERING":                  "ANN ordering by vector requires the column to be indexed",
		"SELECT k FROM iv ORDER BY v ANN OF [1, 0] LIMIT 1":                                         "ANN ordering is only supported on float vector indexes",
		"SELECT k FROM iv ORDER BY l ANN OF [1.0, 0.0] LIMIT 1":                                     "ANN ordering is only supported on float vector indexes",
		"SELECT k FROM leg ORDER BY v ANN OF [1.0, 0.0] LIMIT 1":                                    "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING",
		"SELECT k FROM v ORDER BY v ANN OF [0.0, 0.0, 0.0] LIMIT 1":                                 "Zero vectors cannot be indexed or queried with cosine similarity",
		"CREATE INDEX ON iv (v) USING 'sai'":                                                        "SAI ANN indexes are only allowed on vector columns with float elements",
		"CREATE INDEX ON noidx (v) WITH OPTIONS = {'similarity_function': 'cosine'}":                "Cannot specify options for a non-CUSTOM index",
		"CREATE INDEX ON noidx (v) USING 'sai' WITH OPTIONS = {'similarity_function': 'manhattan'}": "Similarity function MANHATTAN was not recognized for index null. Valid values are: EUCLIDEAN, DOT_PRODUCT, COSINE",
		"CREATE INDEX ON v (t) USING 'sai' WITH OPTIONS = {'similarity_function': 'cosine'}":        "CQL type text cannot have vector options",
		"CREATE INDEX ON v (v) USING 'sai' WITH OPTIONS = {'similarity_function': 'euclidean'}":     "Cannot create more than one storage-attached index on the same column: v",
	})
	if code, got := te.errCode("CREATE INDEX ON noidx (v) USING 'sai' WITH OPTIONS = {'foo': 'bar'}"); code != CodeConfigError || got != "Properties specified [foo] are not understood by StorageAttachedIndex" {
		t.Errorf("unknown SAI option: %v %q", code, got)
	}
	if code, got := te.errCode("SELECT k FROM v ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT ?", intVal(1001)); code != CodeInvalid || !strings.HasSuffix(got, "LIMIT was 1001") {
		t.Errorf("bound LIMIT 1001: %v %q", code, got)
	}
	if code, got := te.errCode("SELECT k FROM v ORDER BY v ANN OF ? LIMIT 1", Value{}); code != CodeInvalid || got != "Unsupported null value for column v" {
		t.Errorf("bound null vector: %v %q", code, got)
	}
}
