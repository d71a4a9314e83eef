package engine

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// Engine is the shared, concurrency-safe CQL engine of one simulated cluster.
type Engine struct {
	opts Options

	mu            sync.Mutex // guards everything below
	keyspaces     map[string]*keyspace
	schemaVersion [16]byte
	schemaGen     uint64
	// prevSchema is the schema version before the last change, made at schemaChangedAt:
	// peers report it until Options.SchemaPropagationDelay has passed.
	prevSchema      [16]byte
	schemaChangedAt time.Time
	schemaChangedBy int // the node that coordinated the last change: it knows it first
	execNode        int // the node serving the statement being executed
	// downSchema holds the schema version of each stopped node (by index), which its
	// system.peers row reports until it starts again, as a down node's gossip state does.
	downSchema map[int][16]byte
	lastTS     int64
	clockSeq   uint64
	node       [6]byte

	plans map[string]cachedPlan // by keyspace and query; valid for one schema generation

	pmu      sync.Mutex
	prepared map[string]*Prepared
	prepTabs map[string][]string // prepared id -> the "keyspace.table" names it uses
	parsed   map[string]*cql.Parsed
}

// cachedPlan is an analysed statement and the schema generation it was analysed against.
type cachedPlan struct {
	gen uint64
	pl  plan
}

// maxParseCache bounds the parsed-statement cache.
const maxParseCache = 4096

// New creates an engine serving the given nodes.
func New(opts Options) (*Engine, error) {
	if len(opts.Nodes) == 0 {
		opts.Nodes = []NodeInfo{{Addr: "127.0.0.1", Port: 9042}}
	}
	for i := range opts.Nodes {
		n := &opts.Nodes[i]
		if n.DataCenter == "" {
			n.DataCenter = "datacenter1"
		}
		if n.Rack == "" {
			n.Rack = "rack1"
		}
		if n.Port == 0 {
			n.Port = 9042
		}
	}
	if opts.ClusterName == "" {
		opts.ClusterName = "cqlsim"
	}
	if opts.ReleaseVersion == "" {
		opts.ReleaseVersion = "5.0.0"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	e := &Engine{
		opts:       opts,
		keyspaces:  map[string]*keyspace{},
		prepared:   map[string]*Prepared{},
		prepTabs:   map[string][]string{},
		parsed:     map[string]*cql.Parsed{},
		plans:      map[string]cachedPlan{},
		downSchema: map[int][16]byte{},
	}
	if _, err := rand.Read(e.node[:]); err != nil {
		return nil, err
	}
	e.node[0] |= 0x01 // multicast bit: a random node id
	if err := e.installSystemKeyspaces(); err != nil {
		return nil, err
	}
	e.bumpSchema()
	e.prevSchema, e.schemaChangedAt = e.schemaVersion, time.Time{} // nothing to propagate yet
	return e, nil
}

func (e *Engine) now() time.Time { return e.opts.Now() }

// nextTimestamp returns a strictly increasing write timestamp in microseconds.
func (e *Engine) nextTimestamp() int64 {
	ts := e.now().UnixMicro()
	if ts <= e.lastTS {
		ts = e.lastTS + 1
	}
	e.lastTS = ts
	return ts
}

func (e *Engine) bumpSchema() {
	e.prevSchema, e.schemaChangedAt, e.schemaChangedBy = e.schemaVersion, e.now(), e.execNode
	e.schemaGen++
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0F | 0x40
	b[8] = b[8]&0x3F | 0x80
	e.schemaVersion = b
}

// SchemaVersion returns the current schema version uuid (changes on every DDL).
func (e *Engine) SchemaVersion() [16]byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.schemaVersion
}

// NodeDown records that node i stopped: its system.peers row keeps the schema version of now
// until NodeUp.
func (e *Engine) NodeDown(i int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.downSchema[i] = e.schemaVersion
}

// NodeUp records that node i runs again and has caught up with the schema.
func (e *Engine) NodeUp(i int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.downSchema, i)
}

// propagating reports whether the last schema change is still propagating (see
// Options.SchemaPropagationDelay).
func (e *Engine) propagating() bool {
	d := e.opts.SchemaPropagationDelay
	return d > 0 && e.now().Before(e.schemaChangedAt.Add(d))
}

// localSchema returns the schema version node's system.local reports: while a change is
// propagating, only its coordinator has it.
func (e *Engine) localSchema(node int) [16]byte {
	if e.propagating() && node != e.schemaChangedBy {
		return e.prevSchema
	}
	return e.schemaVersion
}

// peerSchema returns the schema version node i's system.peers row reports: the version it
// had when it stopped, the previous version while a change is still propagating (every node's
// view of the others lags, the coordinator's included), or the current one.
func (e *Engine) peerSchema(i int) [16]byte {
	if v, ok := e.downSchema[i]; ok {
		return v
	}
	if e.propagating() {
		return e.prevSchema
	}
	return e.schemaVersion
}

// newTimeUUID returns a version 1 UUID for time t, unique within the engine.
func (e *Engine) newTimeUUID(t time.Time) []byte {
	const gregorianOffset = 0x01B21DD213814000
	e.clockSeq++
	ts := uint64(t.UnixNano()/100+gregorianOffset) + e.clockSeq%10000
	var b [16]byte
	binary.BigEndian.PutUint32(b[0:], uint32(ts))
	binary.BigEndian.PutUint16(b[4:], uint16(ts>>32))
	binary.BigEndian.PutUint16(b[6:], uint16(ts>>48)&0x0FFF|0x1000)
	seq := uint16(e.clockSeq/10000) & 0x3FFF
	binary.BigEndian.PutUint16(b[8:], seq|0x8000)
	copy(b[10:], e.node[:])
	return b[:]
}

func (e *Engine) randomUUID() []byte {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0F | 0x40
	b[8] = b[8]&0x3F | 0x80
	return b[:]
}

// parse returns the parsed statement for query, from the cache when possible.
func (e *Engine) parse(query string) (*cql.Parsed, error) {
	e.pmu.Lock()
	p, ok := e.parsed[query]
	e.pmu.Unlock()
	if ok {
		return p, nil
	}
	p, err := cql.Parse(query)
	if err != nil {
		var se *cql.SyntaxError
		if errors.As(err, &se) {
			return nil, syntaxError(se.Error())
		}
		return nil, syntaxError(err.Error())
	}
	e.pmu.Lock()
	if len(e.parsed) >= maxParseCache {
		clear(e.parsed)
	}
	e.parsed[query] = p
	e.pmu.Unlock()
	return p, nil
}

// preparedID computes Cassandra's statement id: md5 of the keyspace then the query text.
func preparedID(keyspace, query string) []byte {
	sum := md5.Sum([]byte(keyspace + query))
	return sum[:]
}

// Prepare parses and prepares query in keyspace, caching it under a stable id.
func (e *Engine) Prepare(keyspace, query string) (*Prepared, error) {
	p, err := e.parse(query)
	if err != nil {
		return nil, err
	}
	// The statement is stored before e.mu is released, so that a schema change that must
	// forget it (forgetPrepared, under e.mu) cannot run between its plan and its storing.
	e.mu.Lock()
	defer e.mu.Unlock()
	pl, err := e.plan(p, keyspace)
	if err != nil {
		return nil, err
	}
	var tabs []string
	for _, t := range tablesOf(pl) {
		tabs = append(tabs, t.ks+"."+t.name)
	}
	prep := &Prepared{
		ID:       preparedID(keyspace, query),
		Query:    query,
		Keyspace: keyspace,
		Vars:     pl.vars(),
		Result:   pl.resultColumns(),
	}
	prep.PKIndexes = pl.pkIndexes()
	switch pl := pl.(type) {
	case *modPlan:
		prep.Conditional = pl.ifNotExists || pl.ifExists || len(pl.conds) > 0
		prep.TableKeyspace, prep.Table = pl.t.ks, pl.t.name
	case *selectPlan:
		prep.TableKeyspace, prep.Table = pl.t.ks, pl.t.name
	}
	e.pmu.Lock()
	e.prepared[hex.EncodeToString(prep.ID)] = prep
	e.prepTabs[hex.EncodeToString(prep.ID)] = tabs
	e.pmu.Unlock()
	return prep, nil
}

// forgetPrepared drops the prepared statements that use a table (or, with table "", any table
// of the keyspace), as Cassandra does when a table's columns change or it is dropped: the next
// EXECUTE gets UNPREPARED and the driver prepares again, picking up the new metadata.
func (e *Engine) forgetPrepared(ks, table string) {
	e.pmu.Lock()
	defer e.pmu.Unlock()
	for id, tabs := range e.prepTabs {
		for _, t := range tabs {
			tks, tname, _ := cutDot(t)
			if tks == ks && (table == "" || tname == table) {
				delete(e.prepared, id)
				delete(e.prepTabs, id)
				break
			}
		}
	}
}

// Lookup returns the prepared statement with the given id, if known (else the caller answers
// UNPREPARED).
func (e *Engine) Lookup(id []byte) (*Prepared, bool) {
	e.pmu.Lock()
	defer e.pmu.Unlock()
	p, ok := e.prepared[hex.EncodeToString(id)]
	return p, ok
}

// checkBoundCount fails, as Cassandra does, when the values do not bind every bind marker:
// positional values must be as many as the markers; named values bind the markers of their
// names (a marker :k is named k, :"K" is K, a ? marker is named after its receiver, e.g. v,
// [ttl], [limit] or partition key token), and values named after no marker are ignored. A
// simple statement (QUERY) fails with "Invalid amount of bind variables", a prepared one
// (EXECUTE) with the numbers of markers and of values that bind one ("there were", where a
// BATCH says "There were").
func checkBoundCount(vals Values, vars []Column, prepared bool) error {
	n := len(vals.Positional)
	if vals.Named != nil {
		n = 0
		for _, v := range vars {
			if _, ok := vals.Named[v.Name]; ok {
				n++
			}
		}
	}
	switch {
	case n == len(vars):
		return nil
	case !prepared:
		return invalid("Invalid amount of bind variables")
	}
	return invalid("there were %d markers(?) in CQL but %d bound variables", len(vars), n)
}

// Execute runs one statement.
func (e *Engine) Execute(req *Request) (*Result, error) {
	query, ks := req.Query, req.Keyspace
	if req.Prepared != nil {
		query = req.Prepared.Query
		if req.Prepared.Keyspace != "" {
			ks = req.Prepared.Keyspace
		}
	}
	p, err := e.parse(query)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.execNode = req.Node
	pl, err := e.cachedPlan(p, ks, query)
	if err != nil {
		return nil, err
	}
	vars := pl.vars()
	if err := checkBoundCount(req.Values, vars, req.Prepared != nil); err != nil {
		return nil, err
	}
	if err := e.validateConsistency(pl, req.Consistency, req.Serial); err != nil {
		return nil, err
	}
	for _, k := range keyspacesOf(e, pl) {
		if err := e.checkConsistency(k, req.Consistency, req.Node); err != nil {
			return nil, err
		}
	}
	ctx := &evalCtx{values: req.Values, vars: vars, now: e.now(), e: e}
	return pl.exec(e, ctx, req)
}

// cachedPlan returns the plan of a statement, analysing it only when the schema changed since
// the last analysis (e.mu held).
func (e *Engine) cachedPlan(p *cql.Parsed, ks, query string) (plan, error) {
	key := ks + "\x00" + query
	if c, ok := e.plans[key]; ok && c.gen == e.schemaGen {
		return c.pl, nil
	}
	pl, err := e.plan(p, ks)
	if err != nil {
		return nil, err
	}
	if _, ddl := pl.(*ddlPlan); !ddl {
		if len(e.plans) >= maxParseCache {
			clear(e.plans)
		}
		e.plans[key] = cachedPlan{gen: e.schemaGen, pl: pl}
	}
	return pl, nil
}

// plan is an analysed statement, ready to run with bind values.
type plan interface {
	vars() []Column
	resultColumns() []Column
	pkIndexes() []uint16
	exec(e *Engine, ctx *evalCtx, req *Request) (*Result, error)
}

// basePlan carries the bind-variable metadata common to all plans.
type basePlan struct {
	v []Column
}

func (b *basePlan) vars() []Column          { return b.v }
func (b *basePlan) resultColumns() []Column { return nil }
func (b *basePlan) pkIndexes() []uint16     { return nil }

// plan analyses a parsed statement against the current schema (e.mu held).
func (e *Engine) plan(p *cql.Parsed, ks string) (plan, error) {
	vars := make([]Column, p.Markers)
	switch st := p.Stmt.(type) {
	case *cql.Select:
		return e.planSelect(st, ks, vars)
	case *cql.Insert:
		return e.planInsert(st, ks, vars)
	case *cql.Update:
		return e.planUpdate(st, ks, vars)
	case *cql.Delete:
		return e.planDelete(st, ks, vars)
	case *cql.Batch:
		return e.planBatchStmt(st, ks, vars)
	case *cql.Unsupported:
		// Features a Cassandra 5.0 node refuses with its default cassandra.yaml are refused
		// with its words, so that a statement fails alike on both.
		switch st.What {
		case "CREATE MATERIALIZED VIEW":
			return nil, invalid("Materialized views are disabled. Enable in cassandra.yaml to use.")
		case "CREATE FUNCTION":
			return nil, invalid("User-defined functions are disabled in cassandra.yaml - set user_defined_functions_enabled=true to enable")
		}
		return nil, unsupported(st.What)
	default:
		return &ddlPlan{basePlan: basePlan{v: vars}, stmt: st, ks: ks}, nil
	}
}

func voidResult() *Result { return &Result{Kind: ResultVoid} }

// dataCenters returns the names of the cluster's data centers, each once, in node order.
func (e *Engine) dataCenters() []string {
	var dcs []string
	for _, n := range e.opts.Nodes {
		if !slices.Contains(dcs, n.DataCenter) {
			dcs = append(dcs, n.DataCenter)
		}
	}
	return dcs
}
