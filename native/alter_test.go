package native_test

import "testing"

// A prepared SELECT * keeps working after its table gains a column: the server forgets the
// statement, the session re-prepares it and picks up the new result metadata.
func TestPreparedSelectStarAfterAlter(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO kv (k, v) VALUES (1, 'x')")
	sel := mustPrepare(t, s, "SELECT * FROM kv WHERE k = ?")
	if _, err := s.Execute(ctxT(t), sel.Bind(1)); err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "ALTER TABLE kv ADD w int")
	mustExec(t, s, "UPDATE kv SET w = 7 WHERE k = 1")
	res, err := s.Execute(ctxT(t), sel.Bind(1))
	if err != nil {
		t.Fatalf("after ALTER: %v", err)
	}
	row := mustRow(t, res, 0)
	m, err := row.Map()
	if err != nil {
		t.Fatal(err)
	}
	if m["w"] != int32(7) || len(res.Columns()) != 3 || len(sel.Columns()) != 3 {
		t.Errorf("after ALTER: row %v, result columns %v, prepared columns %v", m, res.Columns(), sel.Columns())
	}
}
