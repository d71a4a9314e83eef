package difftest

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// Step is one scenario step: a statement with positional arguments, or a gocql batch.
type Step struct {
	Query    string
	Args     []any
	PageSize int    // 0: gocql's default
	Batch    []Step // when set, the steps are sent as one BATCH message
	BatchTyp gocql.BatchType
	Sorted   bool // compare rows as a set (order not defined by CQL)
	CAS      bool // the batch has conditions: read [applied] and the existing rows
	WantErr  bool // the step is expected to fail (checked on the reference server)
	CodeOnly bool // compare the error code but not the message (e.g. a JSON parser's wording)
	// Sleep waits before the step (to let TTLs of earlier writes run out; never a threshold).
	Sleep time.Duration
	// Consistency, when set, replaces the session's consistency level (gocql.Any cannot be
	// asked for this way).
	Consistency gocql.Consistency
	// AwaitIndexes waits before the step until every secondary index of the keyspace is
	// built (see awaitIndexes): Cassandra builds an index in the background after CREATE
	// INDEX returns and fails queries on it until then.
	AwaitIndexes bool
	// Pages fetches the result one page at a time (PageSize rows asked for each) and records,
	// per page, how many rows it held and whether it carried a paging state.
	Pages bool
}

// Outcome is what one step produced, in a form comparable across servers.
type Outcome struct {
	Query   string
	Columns []string
	Rows    []string
	Applied *bool
	Pages   []string // with Step.Pages: "rows=N more=B" per page
	Code    int
	Error   string
}

// rawValue captures a value's bytes for types gocql cannot scan generically (vectors).
type rawValue []byte

// UnmarshalCQL keeps a copy of the raw bytes.
func (r *rawValue) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	*r = append(rawValue(nil), data...)
	return nil
}

// Run executes the steps on a session, replacing {ks} by keyspace in every statement.
func Run(s *gocql.Session, keyspace string, steps []Step) []Outcome {
	out := make([]Outcome, 0, len(steps))
	for _, st := range steps {
		time.Sleep(st.Sleep)
		if st.AwaitIndexes {
			awaitIndexes(s, keyspace)
		}
		o := Outcome{Query: st.Query}
		if st.Batch != nil {
			o.Query = fmt.Sprintf("BATCH(%d statements)", len(st.Batch))
			b := s.NewBatch(st.BatchTyp)
			for _, bs := range st.Batch {
				b.Query(strings.ReplaceAll(bs.Query, "{ks}", keyspace), bs.Args...)
			}
			var err error
			if st.CAS {
				prev := map[string]any{}
				var applied bool
				var iter *gocql.Iter
				applied, iter, err = s.MapExecuteBatchCAS(b, prev)
				if err == nil {
					o.Applied = &applied
					o.Rows = append(o.Rows, format(prev))
					for {
						row := map[string]any{}
						if !iter.MapScan(row) {
							break
						}
						o.Rows = append(o.Rows, format(row))
					}
					err = iter.Close()
				}
			} else {
				err = s.ExecuteBatch(b)
			}
			if err != nil {
				o.Code, o.Error = errorOf(err, keyspace)
			}
			out = append(out, o)
			continue
		}
		q := s.Query(strings.ReplaceAll(st.Query, "{ks}", keyspace), st.Args...).NoSkipMetadata()
		if st.PageSize > 0 {
			q = q.PageSize(st.PageSize)
		}
		if st.Consistency != 0 {
			q = q.Consistency(st.Consistency)
		}
		var err error
		if st.Pages {
			err = runPages(q, &o)
		} else {
			iter := q.Iter()
			readIter(iter, &o)
			err = iter.Close()
		}
		if err != nil {
			o.Code, o.Error = errorOf(err, keyspace)
			if st.CodeOnly {
				o.Error = "(not compared)"
			}
		}
		if st.Sorted {
			sort.Strings(o.Rows)
		}
		out = append(out, o)
	}
	return out
}

// readIter records the columns of an iterator's result and the rows it yields.
func readIter(iter *gocql.Iter, o *Outcome) {
	if o.Columns == nil {
		for _, c := range iter.Columns() {
			o.Columns = append(o.Columns, c.Name+" "+c.TypeInfo.Type().String())
		}
	}
	for {
		row, ok := scanRow(iter)
		if !ok {
			break
		}
		o.Rows = append(o.Rows, row)
	}
}

// runPages runs a query one page at a time, each resumed from the previous page's paging
// state, until a page carries none (at most 1000 pages).
func runPages(q *gocql.Query, o *Outcome) error {
	var state []byte
	for n := 0; n < 1000; n++ {
		iter := q.PageState(state).Iter()
		rows := len(o.Rows)
		readIter(iter, o)
		state = iter.PageState()
		if err := iter.Close(); err != nil {
			return err
		}
		o.Pages = append(o.Pages, fmt.Sprintf("rows=%d more=%v", len(o.Rows)-rows, len(state) > 0))
		if len(state) == 0 {
			return nil
		}
	}
	return errors.New("more than 1000 pages")
}

func scanRow(iter *gocql.Iter) (string, bool) {
	cols := iter.Columns()
	if len(cols) == 0 {
		return "", false
	}
	var dests []any
	var names []string
	for _, c := range cols {
		if c.TypeInfo.Type() == gocql.TypeCustom {
			dests = append(dests, new(rawValue))
			names = append(names, c.Name)
			continue
		}
		if tt, ok := c.TypeInfo.(gocql.TupleTypeInfo); ok {
			for i, e := range tt.Elems {
				//lint:ignore SA1019 gocql v1.7.0's TypeInfo.New is the reference being compared
				dests = append(dests, e.New())
				names = append(names, fmt.Sprintf("%s[%d]", c.Name, i))
			}
			continue
		}
		//lint:ignore SA1019 gocql v1.7.0's TypeInfo.New is the reference being compared
		dests = append(dests, c.TypeInfo.New())
		names = append(names, c.Name)
	}
	if !iter.Scan(dests...) {
		return "", false
	}
	parts := make([]string, len(dests))
	for i, d := range dests {
		parts[i] = names[i] + "=" + format(reflect.ValueOf(d).Elem().Interface())
	}
	return strings.Join(parts, " "), true
}

func format(v any) string {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case rawValue:
		return fmt.Sprintf("0x%x", []byte(x))
	case []byte:
		return fmt.Sprintf("0x%x", x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + format(reflect.Indirect(reflect.ValueOf(x[k])).Interface())
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return "<nil>"
		}
		return format(rv.Elem().Interface())
	}
	return fmt.Sprintf("%v", v)
}

func errorOf(err error, keyspace string) (int, string) {
	msg := strings.ReplaceAll(err.Error(), keyspace, "{ks}")
	var re gocql.RequestError
	if errors.As(err, &re) {
		return re.Code(), msg
	}
	return -1, msg
}

// awaitIndexes waits until every index of the keyspace in system_schema.indexes is listed as
// built in Cassandra's system."IndexInfo", for at most a minute (after which the step runs and
// its failure shows). A server without that table (cqlsim, whose indexes are usable as soon as
// CREATE INDEX returns) is not waited for.
func awaitIndexes(s *gocql.Session, keyspace string) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		want := map[string]bool{}
		iter := s.Query("SELECT index_name FROM system_schema.indexes WHERE keyspace_name = ?", keyspace).Iter()
		var name string
		for iter.Scan(&name) {
			want[name] = true
		}
		if err := iter.Close(); err != nil {
			return
		}
		iter = s.Query(`SELECT index_name FROM system."IndexInfo" WHERE table_name = ?`, keyspace).Iter()
		for iter.Scan(&name) {
			delete(want, name)
		}
		if err := iter.Close(); err != nil || len(want) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
