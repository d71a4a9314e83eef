package engine

import (
	"bytes"
	"testing"
)

// TestConstantForTuple: Cassandra takes a constant for a tuple and reads its text as the
// tuple's string form ('1:a', '@' for null, '\:' for a colon); fewer components make a shorter
// value, kept as it is, so the key 1 is not the key (1, null).
func TestConstantForTuple(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE tc (p tuple<int, text>, v tuple<text, text>, b tuple<boolean, timestamp, blob>, PRIMARY KEY (p))")
	te.mustExec(`INSERT INTO tc (p, v, b) VALUES (1, 'a\:b:@', 'TRUE:1000:01ff')`)
	te.mustExec(`INSERT INTO tc (p, v) VALUES ('-2:x', ':\@')`)
	r := te.mustExec("SELECT p FROM tc WHERE p = 1")
	if want := []byte{0, 0, 0, 4, 0, 0, 0, 1}; len(r.Rows) != 1 || !bytes.Equal(r.Rows[0][0], want) {
		t.Errorf("p = 1: rows %x, want one of %x", r.Rows, want)
	}
	eq(t, "p = (1, null)", te.rows("SELECT p FROM tc WHERE p = (1, null)"), nil)
	eq(t, "rows", te.rows("SELECT v, b FROM tc WHERE p IN (1, (-2, 'x'))"), []string{
		"('', '@')|null", "('a:b', null)|(true, 1970-01-01T00:00:01Z, 0x01ff)"})
	eq(t, "condition", te.rows(`UPDATE tc SET v = null WHERE p = '-2:x' IF v = ':\@'`), []string{"true"})
	te.wantInvalid(map[string]string{
		"INSERT INTO tc (p) VALUES ('1:a:b')":    "Invalid tuple literal: too many elements. Type frozen<tuple<int, text>> expects 2 but got 3",
		"INSERT INTO tc (p) VALUES ('x')":        "Unable to make int from 'x'",
		"INSERT INTO tc (p) VALUES (1.5)":        "Unable to make int from '1.5'",
		"INSERT INTO tc (p) VALUES ('')":         "Key may not be empty",
		"INSERT INTO tc (p, b) VALUES (3, 'no')": "Unable to make boolean from 'no'",
	})
}
