package difftest

import "fmt"

// orderingTypes lists (empty map literals are left out: Cassandra 5.0.9 fails them as frozen map
// keys with a ClassCastException), per CQL type, literals inserted as partition and clustering keys: the
// servers must agree on token order (partition key serialisation and Murmur3) and on each
// type's clustering order.
var orderingTypes = []struct {
	name, typ string
	values    []string
}{
	{"i", "int", []string{"0", "-1", "1", "2147483647", "-2147483648", "100"}},
	{"b", "bigint", []string{"0", "-9223372036854775808", "9223372036854775807", "-5", "5"}},
	{"vi", "varint", []string{"0", "-1", "1", "255", "-256", "123456789012345678901234567890", "-98765432109876543210"}},
	{"de", "decimal", []string{"0", "-1.5", "1.50", "1.5", "100", "0.001", "-1000000000000.000001", "1e3"}},
	{"do", "double", []string{"0", "-0.0", "1.5", "-1.5", "1e300", "-1e-300", "NaN", "Infinity", "-Infinity"}},
	{"f", "float", []string{"0", "1.5", "-1.5", "3.4e38", "NaN", "-Infinity"}},
	{"t", "text", []string{"''", "'a'", "'B'", "'ab'", "'é'", "'z'", "'aa'"}},
	{"bl", "blob", []string{"0x", "0x00", "0xff", "0x0001", "0x80", "0x7f"}},
	{"bo", "boolean", []string{"true", "false"}},
	{"u", "uuid", []string{"00000000-0000-0000-0000-000000000000", "ffffffff-ffff-4fff-bfff-ffffffffffff", "550e8400-e29b-41d4-a716-446655440000",
		"d2177dd0-eaa2-11de-a572-001b779c76e3", "e7cd0d50-29bb-11e5-b345-feff819cdc9f", "50554d6e-29bb-11e5-b345-feff819cdc9f"}},
	{"tu", "timeuuid", []string{"d2177dd0-eaa2-11de-a572-001b779c76e3", "e7cd0d50-29bb-11e5-b345-feff819cdc9f", "50554d6e-29bb-11e5-b345-feff819cdc9f",
		"50554d6e-29bb-11e5-8345-feff819cdc9f", "00000000-0000-1000-8000-000000000000"}},
	{"ts", "timestamp", []string{"0", "-1000", "'2024-01-01 00:00:00+0000'", "'1900-06-01'", "1700000000000"}},
	{"da", "date", []string{"'1970-01-01'", "'1969-12-31'", "'2024-02-29'", "'0001-01-01'", "2147483648"}},
	{"tm", "time", []string{"'00:00:00'", "'23:59:59.999999999'", "'12:00:00.5'", "1"}},
	{"in", "inet", []string{"'127.0.0.1'", "'10.0.0.1'", "'::1'", "'255.255.255.255'", "'fe80::1'"}},
	{"sm", "smallint", []string{"0", "-32768", "32767", "-1"}},
	{"ti", "tinyint", []string{"0", "-128", "127", "-1"}},
	{"fl", "frozen<list<int>>", []string{"[]", "[1]", "[1, 2]", "[0, 5]", "[-1]"}},
	{"fs", "frozen<set<text>>", []string{"{}", "{'a'}", "{'a', 'b'}", "{'b'}"}},
	{"fm", "frozen<map<int, text>>", []string{"{1: 'a'}", "{1: 'b'}", "{0: 'z', 2: 'a'}"}},
	{"tp", "tuple<int, text>", []string{"(1, 'a')", "(1, 'b')", "(0, 'z')", "(-1, null)", "(1, null)"}},
}

// OrderingSteps returns the steps that create one table per type and read it back.
func OrderingSteps() []Step {
	var steps []Step
	for _, ot := range orderingTypes {
		tbl := "{ks}.o_" + ot.name
		steps = append(steps, Step{Query: fmt.Sprintf("CREATE TABLE %s (k %s, c %s, d %s, PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY (c ASC, d DESC)", tbl, ot.typ, ot.typ, ot.typ)})
		for i, v := range ot.values {
			for j, w := range ot.values {
				if (i+j)%2 == 0 {
					steps = append(steps, Step{Query: fmt.Sprintf("INSERT INTO %s (k, c, d) VALUES (%s, %s, %s)", tbl, v, w, ot.values[(i+j)%len(ot.values)]),
						WantErr: emptyKey(v)})
				}
			}
		}
		steps = append(steps,
			Step{Query: fmt.Sprintf("SELECT k, c, d FROM %s", tbl), PageSize: 4},
			Step{Query: fmt.Sprintf("SELECT k, token(k) FROM %s PER PARTITION LIMIT 1", tbl)},
			Step{Query: fmt.Sprintf("SELECT c, d FROM %s WHERE k = %s AND c > %s", tbl, ot.values[0], ot.values[1]), WantErr: emptyKey(ot.values[0])},
		)
	}
	return steps
}

// emptyKey reports literals that make an empty partition key ("Key may not be empty").
func emptyKey(lit string) bool { return lit == "''" || lit == "0x" }
