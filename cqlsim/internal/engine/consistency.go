package engine

import (
	"strconv"
	"strings"
)

// CodeUnavailable is the protocol code of an Unavailable error.
const CodeUnavailable ErrorCode = 0x1000

var consistencyNames = []string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "SERIAL", "LOCAL_SERIAL", "LOCAL_ONE"}

func consistencyName(cl uint16) string {
	if int(cl) < len(consistencyNames) {
		return consistencyNames[cl]
	}
	return "UNKNOWN(" + strconv.Itoa(int(cl)) + ")"
}

// replicas returns the replication factor configured for a keyspace, per data center, and
// how many replicas the simulated cluster can actually hold (all nodes are up).
func (e *Engine) replicas(k *keyspace, localDC string) (total, local, alive, localAlive int) {
	nodesIn := map[string]int{}
	for _, n := range e.opts.Nodes {
		nodesIn[n.DataCenter]++
	}
	class := k.replication["class"]
	switch {
	case strings.HasSuffix(class, "SimpleStrategy"):
		rf, _ := strconv.Atoi(k.replication["replication_factor"])
		total, local = rf, rf
		alive = min(rf, len(e.opts.Nodes))
		localAlive = alive
	case strings.HasSuffix(class, "NetworkTopologyStrategy"):
		for dc, v := range k.replication {
			if dc == "class" {
				continue
			}
			rf, _ := strconv.Atoi(v)
			total += rf
			alive += min(rf, nodesIn[dc])
			if dc == localDC {
				local, localAlive = rf, min(rf, nodesIn[dc])
			}
		}
	default: // LocalStrategy: always the local node
		return 1, 1, 1, 1
	}
	return total, local, alive, localAlive
}

// Replication describes how keyspace ks replicates, for the tablet layout. It returns rf,
// the number of replicas ks asks for: its replication_factor under SimpleStrategy, the sum of
// its data centers' factors under NetworkTopologyStrategy (whether or not the cluster has
// those data centers), 1 under LocalStrategy. Under NetworkTopologyStrategy it also reports
// perDC and sets factors[d], for each d, to the factor ks gives data center dcs[d]: 0 when ks
// names no such data center; factors must be at
// least as long as dcs, and is left alone under the other strategies. It reports ok false
// when there is no such keyspace. It allocates nothing, and reads the replication as it is
// now, so that an ALTER KEYSPACE takes effect at once.
func (e *Engine) Replication(ks string, dcs []string, factors []int) (rf int, perDC, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	k, ok := e.keyspaces[ks]
	if !ok {
		return 0, false, false
	}
	repl := k.replication
	switch class := repl["class"]; {
	case strings.HasSuffix(class, "SimpleStrategy"):
		rf, _ := strconv.Atoi(repl["replication_factor"])
		return rf, false, true
	case strings.HasSuffix(class, "NetworkTopologyStrategy"):
		// CREATE and ALTER KEYSPACE stored non-negative integers (replicationFrom).
		total := 0
		for dc, v := range repl {
			if dc != "class" {
				n, _ := strconv.Atoi(v)
				total += n
			}
		}
		for d, dc := range dcs {
			factors[d] = 0
			if v, ok := repl[dc]; ok && dc != "class" {
				factors[d], _ = strconv.Atoi(v)
			}
		}
		return total, true, true
	}
	return 1, false, true
}

// checkConsistency fails with Unavailable, as a real cluster would, when the consistency level
// needs more replicas of the keyspace than the simulated cluster has.
func (e *Engine) checkConsistency(k *keyspace, cl uint16, node int) error {
	// LocalStrategy keyspaces (system, system_schema) have one replica: TWO fails there too, as
	// on a real node; virtual keyspaces are not replicated at all.
	if k == nil || k.virtual {
		return nil
	}
	dc := ""
	if node >= 0 && node < len(e.opts.Nodes) {
		dc = e.opts.Nodes[node].DataCenter
	}
	total, local, alive, localAlive := e.replicas(k, dc)
	required, have := 1, alive
	switch cl {
	case 2:
		required = 2
	case 3:
		required = 3
	case 4, 8: // QUORUM, SERIAL
		required = total/2 + 1
	case 5: // ALL
		required = total
	case 6, 9: // LOCAL_QUORUM, LOCAL_SERIAL
		required, have = local/2+1, localAlive
	case 7: // EACH_QUORUM (checked over the whole cluster)
		required = total/2 + 1
	case 10: // LOCAL_ONE
		have = localAlive
	}
	if have < required {
		return &Error{Code: CodeUnavailable, Message: "Cannot achieve consistency level " + consistencyName(cl),
			Consistency: cl, Required: int32(required), Alive: int32(have)}
	}
	return nil
}

// tablesOf lists the tables a plan reads or writes.
func tablesOf(pl plan) []*table {
	var tables []*table
	switch p := pl.(type) {
	case *selectPlan:
		tables = append(tables, p.t)
	case *modPlan:
		tables = append(tables, p.t)
	case *batchPlan:
		for _, s := range p.stmts {
			tables = append(tables, s.t)
		}
	}
	return tables
}

// keyspacesOf lists the keyspaces a plan reads or writes.
func keyspacesOf(e *Engine, pl plan) []*keyspace {
	var tables []*table
	switch p := pl.(type) {
	case *selectPlan:
		tables = append(tables, p.t)
	case *modPlan:
		tables = append(tables, p.t)
	case *batchPlan:
		for _, s := range p.stmts {
			tables = append(tables, s.t)
		}
	}
	var out []*keyspace
	for _, t := range tables {
		if k, ok := e.keyspaces[t.ks]; ok {
			out = append(out, k)
		}
	}
	return out
}

// Consistency codes the statement checks refer to.
const (
	clAny         uint16 = 0x0000
	clEachQuorum  uint16 = 0x0007
	clSerial      uint16 = 0x0008
	clLocalSerial uint16 = 0x0009
)

func isSerialConsistency(cl uint16) bool { return cl == clSerial || cl == clLocalSerial }

// validateConsistency rejects the consistency levels Cassandra refuses for a kind of statement,
// with its messages, before the statement runs: ANY for reads; SERIAL and LOCAL_SERIAL for
// writes without conditions; ANY and the serial levels for counter updates; for conditional
// updates (alone or in a batch), a serial consistency other than SERIAL or LOCAL_SERIAL, a
// serial commit consistency, and EACH_QUORUM outside NetworkTopologyStrategy. Batches without
// conditions are not checked (Cassandra does not check them either); batches with conditions
// are checked by runBatch once their statements are known to share one partition. serial is 0
// when the request gave none (the default, SERIAL).
func (e *Engine) validateConsistency(pl plan, cl, serial uint16) error {
	switch p := pl.(type) {
	case *selectPlan:
		if cl == clAny {
			return invalid("ANY ConsistencyLevel is only supported for writes")
		}
	case *modPlan:
		if p.conditional() {
			return e.validateCAS(p.t, cl, serial)
		}
		if p.t.counter {
			if cl == clAny {
				return invalid("Consistency level ANY is not yet supported for counter table %s", p.t.name)
			}
			if isSerialConsistency(cl) {
				return invalid("Counter operations are inherently non-serializable")
			}
			return nil
		}
		if isSerialConsistency(cl) {
			return invalid("You must use conditional updates for serializable writes")
		}
	}
	return nil
}

// validateCAS checks the serial and commit consistency levels of a conditional update of t, in
// Cassandra's order (StorageProxy.cas: validateForCas, then validateForCasCommit).
func (e *Engine) validateCAS(t *table, cl, serial uint16) error {
	if serial != 0 && !isSerialConsistency(serial) {
		return invalid("Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL")
	}
	if isSerialConsistency(cl) {
		return invalid("%s is not supported as conditional update commit consistency. Use ANY if you mean \"make sure it is accepted but I don't care how many replicas commit it for non-SERIAL reads\"", consistencyName(cl))
	}
	if cl == clEachQuorum {
		if k, ok := e.keyspaces[t.ks]; ok {
			if class := k.replication["class"]; !strings.HasSuffix(class, "NetworkTopologyStrategy") {
				return invalid("consistency level EACH_QUORUM not compatible with replication strategy (%s)", class)
			}
		}
	}
	return nil
}
