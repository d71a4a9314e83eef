//go:build ignore

// The migrate-suite program drives golang-migrate's Cassandra driver through a fixed scenario
// against a real node and prints a trace: one line per step (its error or ok) followed by the
// migration version and the keyspace's schema and rows. scripts/migrate-suite builds it twice, in
// a temporary module whose gocql is either gocql v1.7.0 or the drop-in, and compares the traces.
//
//	go run main.go -hosts 127.0.0.1:9042 -keyspace migrate_suite_gocql > gocql.trace
//
// The keyspace is created at the start (dropped first if a previous run left it) and dropped at
// the end. The trace names it KS, the migration directory DIR and the node HOST, so that two runs
// on different keyspaces compare equal. Exits 0 when the scenario ran to its end (steps that
// fail are part of the trace), 2 when the keyspace cannot be set up or the program times out.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	"github.com/golang-migrate/migrate/v4/database/cassandra"
	_ "github.com/golang-migrate/migrate/v4/source/file"
)

// The main scenario's migrations, run with x-multi-statement=true: a table, a column, then a
// type, a table using it and an index in one file, rows, and a table with a clustering key.
// (Migration 3 creates a table for the type rather than adding a column to users: Cassandra
// refuses to re-add a dropped column whose type was a user type, as migrate 2, migrate 5 would.)
var mainSet = map[string]string{
	"1_create_users.up.cql":   "CREATE TABLE users (id int PRIMARY KEY, name text);\n",
	"1_create_users.down.cql": "DROP TABLE users;\n",
	"2_add_email.up.cql":      "ALTER TABLE users ADD email text;\n",
	"2_add_email.down.cql":    "ALTER TABLE users DROP email;\n",
	"3_addresses.up.cql": `CREATE TYPE address (street text, city text);
CREATE TABLE addresses (user_id int PRIMARY KEY, home frozen<address>);
CREATE INDEX users_by_email ON users (email);
`,
	"3_addresses.down.cql": `DROP INDEX users_by_email;
DROP TABLE addresses;
DROP TYPE address;
`,
	"4_seed.up.cql": `INSERT INTO users (id, name, email) VALUES (1, 'ada', 'ada@example.org');
INSERT INTO users (id, name, email) VALUES (2, 'alan', 'alan@example.org');
INSERT INTO addresses (user_id, home) VALUES (2, {street: '2 Hampton Road', city: 'Teddington'});

-- a comment between statements
INSERT INTO users (id, name) VALUES (3, 'grace');
UPDATE users SET email = 'grace@example.org' WHERE id = 3;
`,
	"4_seed.down.cql": `DELETE FROM users WHERE id IN (1, 2, 3);
DELETE FROM addresses WHERE user_id = 2;
`,
	"5_events.up.cql": `CREATE TABLE events (user_id int, seq int, kind text, PRIMARY KEY (user_id, seq)) WITH CLUSTERING ORDER BY (seq DESC);
INSERT INTO events (user_id, seq, kind) VALUES (1, 1, 'signup');
INSERT INTO events (user_id, seq, kind) VALUES (1, 2, 'login');
`,
	"5_events.down.cql": "DROP TABLE events;\n",
}

// Migration 6, added later: first broken (its first statement runs, its second is not CQL), then
// fixed.
const (
	brokenAudit = `CREATE TABLE audit (id int PRIMARY KEY, what text);
CREAT TABLE audit_typo (id int PRIMARY KEY);
`
	fixedAudit = `CREATE TABLE IF NOT EXISTS audit (id int PRIMARY KEY, what text);
INSERT INTO audit (id, what) VALUES (1, 'fixed');
`
	auditDown = "DROP TABLE audit;\n"
)

// The single-statement scenario's migrations (no x-multi-statement): migration 3 holds two
// statements, which a node runs only when the driver splits them.
var singleSet = map[string]string{
	"1_create_kv.up.cql":   "CREATE TABLE kv (k text PRIMARY KEY, v int)",
	"1_create_kv.down.cql": "DROP TABLE kv",
	"2_fill_kv.up.cql":     "INSERT INTO kv (k, v) VALUES ('a', 1)",
	"2_fill_kv.down.cql":   "TRUNCATE kv",
	"3_two.up.cql":         "INSERT INTO kv (k, v) VALUES ('b', 2); INSERT INTO kv (k, v) VALUES ('c', 3);",
	"3_two.down.cql":       "DELETE FROM kv WHERE k IN ('b', 'c')",
}

type suite struct {
	hosts    []string
	keyspace string
	dir      string
	admin    *gocql.Session
	m        *migrate.Migrate
	replacer *strings.Replacer
}

func main() {
	hosts := flag.String("hosts", "127.0.0.1", "comma-separated host[:port] of the node(s); the migration URLs use the first")
	keyspace := flag.String("keyspace", "migrate_suite", "keyspace to create, migrate and drop")
	dir := flag.String("dir", "", "directory for the migration files (default: a temporary one, removed at the end)")
	timeout := flag.Duration("timeout", 3*time.Minute, "give up (exit 2) after this long")
	flag.Parse()

	time.AfterFunc(*timeout, func() {
		fmt.Println("TIMEOUT after", *timeout)
		fmt.Fprintln(os.Stderr, "migrate-suite: timed out after", *timeout)
		os.Exit(2)
	})
	s := &suite{hosts: strings.Split(*hosts, ","), keyspace: *keyspace, dir: *dir}
	if err := s.main(); err != nil {
		fmt.Fprintln(os.Stderr, "migrate-suite:", err)
		os.Exit(2)
	}
}

// main sets the keyspace up, runs the scenario and drops the keyspace.
func (s *suite) main() error {
	if s.dir == "" {
		d, err := os.MkdirTemp("", "migrate-suite-files-")
		if err != nil {
			return err
		}
		s.dir = d
		defer os.RemoveAll(d)
	}
	if err := s.setup(); err != nil {
		return err
	}
	s.run()
	return s.teardown()
}

func (s *suite) setup() error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	s.replacer = strings.NewReplacer(s.dir, "DIR", s.keyspace, "KS", s.hosts[0], "HOST")
	cluster := gocql.NewCluster(s.hosts...)
	cluster.Timeout = 30 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	var err error
	if s.admin, err = cluster.CreateSession(); err != nil {
		return fmt.Errorf("connecting to %v: %w", s.hosts, err)
	}
	if err := s.admin.Query("DROP KEYSPACE IF EXISTS " + s.keyspace).Exec(); err != nil {
		return fmt.Errorf("dropping a previous %s: %w", s.keyspace, err)
	}
	cql := "CREATE KEYSPACE " + s.keyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
	if err := s.admin.Query(cql).Exec(); err != nil {
		return fmt.Errorf("creating %s: %w", s.keyspace, err)
	}
	return nil
}

func (s *suite) teardown() error {
	if s.m != nil {
		s.m.Close()
	}
	err := s.admin.Query("DROP KEYSPACE IF EXISTS " + s.keyspace).Exec()
	s.admin.Close()
	return err
}

// url is the database URL of the keyspace (or of the one named ks) with the given query.
func (s *suite) url(ks, query string) string {
	if ks == "" {
		ks = s.keyspace
	}
	u := "cassandra://" + s.hosts[0] + "/" + ks
	if query != "" {
		u += "?" + query
	}
	return u
}

func (s *suite) write(sub string, files map[string]string) {
	d := filepath.Join(s.dir, sub)
	if err := os.MkdirAll(d, 0o755); err != nil {
		panic(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			panic(err)
		}
	}
}

// open replaces s.m with a new Migrate on the migrations in DIR/sub and the database URL, and
// reports whether it opened.
func (s *suite) open(step, sub, dbURL string) bool {
	m, err := migrate.New("file://"+filepath.Join(s.dir, sub), dbURL)
	s.m = m
	s.step(step, err)
	return m != nil
}

// close closes s.m.
func (s *suite) close(step string) {
	srcErr, dbErr := s.m.Close()
	s.m = nil
	s.line(step, errors.Join(srcErr, dbErr))
}

// run is the scenario: the steps print the trace, and a step that fails does not end it.
func (s *suite) run() {
	s.badURLs()
	s.multiStatement()
	s.singleStatement()
	s.withInstance()
}

// badURLs opens URLs golang-migrate's driver rejects, before or after connecting.
func (s *suite) badURLs() {
	for _, c := range []struct{ name, url string }{
		{"open without keyspace", "cassandra://" + s.hosts[0]},
		{"open bad consistency", s.url("", "consistency=bogus")},
		{"open bad protocol", s.url("", "protocol=four")},
		{"open bad timeout", s.url("", "timeout=soon")},
		{"open bad connect-timeout", s.url("", "connect-timeout=later")},
		{"open bad disable-host-lookup", s.url("", "disable-host-lookup=maybe")},
		{"open bad multi-statement size", s.url("", "x-multi-statement-max-size=big")},
		{"open missing keyspace", s.url(s.keyspace+"_missing", "")},
		// Opens with both: the shim speaks protocol v3 when asked (a server that speaks it).
		{"open protocol 3", s.url("", "protocol=3")},
	} {
		m, err := migrate.New("file://"+s.dir, c.url)
		if m != nil {
			m.Close()
		}
		s.line(c.name, err)
	}
}

// multiStatement is the main scenario: multi-statement files, consistency ALL (the driver's
// default), every way of moving between versions, a migration that fails half-way and Drop.
func (s *suite) multiStatement() {
	s.write("main", mainSet)
	url := s.url("", "x-multi-statement=true&x-multi-statement-max-size=65536&timeout=30s&connect-timeout=10s")
	if !s.open("open main", "main", url) {
		return
	}
	s.step("version", nil)
	s.step("steps 2", s.m.Steps(2))
	s.step("up", s.m.Up())
	s.step("up again", s.m.Up())
	s.step("steps -1", s.m.Steps(-1))
	s.step("migrate 2", s.m.Migrate(2))
	s.step("migrate 5", s.m.Migrate(5))
	s.step("steps 3 past the last", s.m.Steps(3))
	s.step("migrate 9 (no such migration)", s.m.Migrate(9))
	s.step("down", s.m.Down())
	s.step("down again", s.m.Down())
	s.step("up after down", s.m.Up())

	// A broken migration 6: it fails half-way and leaves the version dirty.
	s.close("close main")
	s.write("main", map[string]string{"6_audit.up.cql": brokenAudit, "6_audit.down.cql": auditDown})
	if !s.open("open with broken 6", "main", url) {
		return
	}
	s.step("up to broken 6", s.m.Up())
	s.step("up while dirty", s.m.Up())
	s.step("steps -1 while dirty", s.m.Steps(-1))
	s.step("migrate 1 while dirty", s.m.Migrate(1))
	s.step("force -2", s.m.Force(-2))
	s.step("force 5", s.m.Force(5))

	s.close("close with broken 6")
	s.write("main", map[string]string{"6_audit.up.cql": fixedAudit})
	if !s.open("open with fixed 6", "main", url) {
		return
	}
	s.step("up to fixed 6", s.m.Up())
	s.step("force -1", s.m.Force(-1))
	s.step("force 3", s.m.Force(3))
	s.step("up from forced 3", s.m.Up())
	s.step("drop", s.m.Drop())
	s.step("up after drop", s.m.Up())
	s.close("close with fixed 6")
}

// singleStatement runs a migration file as one statement, on a custom migrations table, with the
// other connection parameters. (disable-host-lookup=true is accepted but, in golang-migrate
// v4.18.1, sets nothing.)
func (s *suite) singleStatement() {
	s.write("single", singleSet)
	url := s.url("", "x-migrations-table=custom_migrations&consistency=local_quorum&protocol=4&username=migrator&password=secret"+
		"&timeout=20s&connect-timeout=10s&disable-host-lookup=true&sslmode=disable")
	if !s.open("open single", "single", url) {
		return
	}
	s.step("single up", s.m.Up())
	s.step("single force 2", s.m.Force(2))
	s.step("single down", s.m.Down())
	s.close("single close")
}

// withInstance hands golang-migrate an application's own session (cassandra.WithInstance), with
// multi-statement files and another migrations table, and checks the configurations it refuses.
func (s *suite) withInstance() {
	_, err := cassandra.WithInstance(s.admin, nil)
	s.line("with instance, no config", err)
	_, err = cassandra.WithInstance(s.admin, &cassandra.Config{})
	s.line("with instance, no keyspace", err)

	cluster := gocql.NewCluster(s.hosts...)
	cluster.Keyspace = s.keyspace
	cluster.Consistency = gocql.One
	cluster.Timeout = 30 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	sess, err := cluster.CreateSession()
	if err != nil {
		s.line("with instance, session", err)
		return
	}
	drv, err := cassandra.WithInstance(sess, &cassandra.Config{
		KeyspaceName:          s.keyspace,
		MigrationsTable:       "app_migrations",
		MultiStatementEnabled: true,
	})
	if err != nil {
		sess.Close()
		s.line("with instance", err)
		return
	}
	m, err := migrate.NewWithDatabaseInstance("file://"+filepath.Join(s.dir, "single"), "cassandra", drv)
	s.m = m
	s.step("with instance", err)
	if m == nil {
		sess.Close()
		return
	}
	s.step("with instance up", m.Up())
	s.step("with instance steps -2", m.Steps(-2))
	s.close("with instance close")
	_, err = cassandra.WithInstance(sess, &cassandra.Config{KeyspaceName: s.keyspace})
	s.line("with instance, closed session", err)
}

// line prints a step and its outcome.
func (s *suite) line(step string, err error) {
	fmt.Printf("%s: %s\n", step, s.describe(err))
}

// step prints a step, its outcome, golang-migrate's version and the keyspace's state.
func (s *suite) step(name string, err error) {
	s.line(name, err)
	if s.m != nil {
		v, dirty, err := s.m.Version()
		if err != nil {
			fmt.Printf("  version: %s\n", s.describe(err))
		} else {
			fmt.Printf("  version: %d dirty=%t\n", v, dirty)
		}
	}
	for _, l := range s.schema() {
		fmt.Println("  " + l)
	}
}

// describe is an error's text followed by the types in its chain (and the code of a server
// error), since applications and golang-migrate itself tell errors apart by type and value.
func (s *suite) describe(err error) string {
	if err == nil {
		return "ok"
	}
	var types []string
	for e := err; e != nil; {
		t := fmt.Sprintf("%T", e)
		if c, ok := e.(interface{ Code() int }); ok {
			t += fmt.Sprintf("(code 0x%04x)", c.Code())
		}
		types = append(types, t)
		switch d := e.(type) {
		case database.Error:
			e = d.OrigErr
		case *database.Error:
			e = d.OrigErr
		default:
			e = errors.Unwrap(e)
		}
	}
	return strconv.Quote(s.replacer.Replace(err.Error())) + " [" + strings.Join(types, " <- ") + "]"
}

// schema describes the keyspace as system_schema has it, and every table's rows as JSON.
func (s *suite) schema() []string {
	var out []string
	fail := func(what string, err error) {
		out = append(out, what+": "+s.describe(err))
	}
	var tables []string
	iter := s.admin.Query("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?", s.keyspace).Iter()
	var name string
	for iter.Scan(&name) {
		tables = append(tables, name)
	}
	if err := iter.Close(); err != nil {
		fail("tables", err)
		return out
	}
	sort.Strings(tables)
	for _, t := range tables {
		var cols []string
		iter := s.admin.Query("SELECT column_name, kind, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?", s.keyspace, t).Iter()
		var col, kind, typ string
		for iter.Scan(&col, &kind, &typ) {
			cols = append(cols, col+" "+typ+" "+kind)
		}
		if err := iter.Close(); err != nil {
			fail("columns of "+t, err)
		}
		sort.Strings(cols)
		out = append(out, "table "+t+" ("+strings.Join(cols, ", ")+")")

		var rows []string
		iter = s.admin.Query(`SELECT JSON * FROM ` + s.keyspace + `."` + t + `"`).Iter()
		var row string
		for iter.Scan(&row) {
			rows = append(rows, row)
		}
		if err := iter.Close(); err != nil {
			fail("rows of "+t, err)
		}
		sort.Strings(rows)
		for _, r := range rows {
			out = append(out, "  row "+r)
		}
	}

	iter = s.admin.Query("SELECT index_name, table_name, kind, options FROM system_schema.indexes WHERE keyspace_name = ?", s.keyspace).Iter()
	var idx, table, kind string
	var options map[string]string
	var indexes []string
	for iter.Scan(&idx, &table, &kind, &options) {
		indexes = append(indexes, fmt.Sprintf("index %s on %s %s %v", idx, table, kind, options))
	}
	if err := iter.Close(); err != nil {
		fail("indexes", err)
	}
	sort.Strings(indexes)
	out = append(out, indexes...)

	iter = s.admin.Query("SELECT type_name, field_names, field_types FROM system_schema.types WHERE keyspace_name = ?", s.keyspace).Iter()
	var typ string
	var fieldNames, fieldTypes []string
	var types []string
	for iter.Scan(&typ, &fieldNames, &fieldTypes) {
		if len(fieldNames) != len(fieldTypes) {
			types = append(types, fmt.Sprintf("type %s: %d names, %d types", typ, len(fieldNames), len(fieldTypes)))
			continue
		}
		fields := make([]string, len(fieldNames))
		for i := range fieldNames {
			fields[i] = fieldNames[i] + " " + fieldTypes[i]
		}
		types = append(types, "type "+typ+" ("+strings.Join(fields, ", ")+")")
	}
	if err := iter.Close(); err != nil {
		fail("types", err)
	}
	sort.Strings(types)
	out = append(out, types...)
	return out
}
