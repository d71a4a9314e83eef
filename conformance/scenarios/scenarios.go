// Package scenarios holds the conformance scenarios: programs written once against the gocql API
// (import path github.com/gocql/gocql). The conformance agent is built twice, once with the real
// gocql v1.7.0 and once with the replace to cqlbridge's drop-in module, and every scenario records
// what it observes into a trace.Recorder; the runner compares the two traces.
package scenarios

import (
	"context"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/conformance/trace"
)

// Env is what a scenario gets: a session on its keyspace, the recorder, and a way to open more
// sessions with a modified configuration.
type Env struct {
	Ctx      context.Context
	Session  *gocql.Session
	Keyspace string
	Hosts    []string
	R        *trace.Recorder
	// Table returns a table name unique to the scenario (prefix plus the scenario's index).
	Table func(prefix string) string
}

// Cluster returns a cluster configuration like the one the agent's session uses.
func (e *Env) Cluster() *gocql.ClusterConfig {
	c := gocql.NewCluster(e.Hosts...)
	c.Keyspace = e.Keyspace
	c.Consistency = gocql.One
	c.Timeout = 60 * time.Second
	c.ConnectTimeout = 20 * time.Second
	return c
}

// Exec runs set-up CQL; a failure is recorded (so both sides see it) and returned.
func (e *Env) Exec(stmt string, values ...any) error {
	err := e.Session.Query(stmt, values...).WithContext(e.Ctx).Exec()
	if err != nil {
		e.R.Record("setup "+stmt, err)
	}
	return err
}

// Scenario is one named conformance scenario.
type Scenario struct {
	Name string
	Run  func(e *Env)
}

// All returns every scenario, in a fixed order. Names are unique (checked by a test).
func All() []Scenario {
	var all []Scenario
	for _, group := range [][]Scenario{typeScenarios(), pagingScenarios(), iterScenarios(), casScenarios(),
		batchScenarios(), errorScenarios(), contextScenarios(), observerScenarios(), sessionScenarios(),
		valueScenarios(), udtScenarios(), tupleScenarios(), counterScenarios(), staticScenarios(),
		pagingMoreScenarios(), iterMoreScenarios(), casMoreScenarios(), batchMoreScenarios(),
		errorMoreScenarios(), contextMoreScenarios(), observerMoreScenarios(), sessionMoreScenarios(),
		retryScenarios(), bindScenarios(), configScenarios(), misuseScenarios(), serverFrameScenarios(),
		legacyCScenarios(), unavailableScenarios(), unpreparedScenarios()} {
		all = append(all, group...)
	}
	return all
}

// FreshMetadata reads the keyspace's metadata through a new session. gocql caches keyspace
// metadata per session and drops the cache only when a schema event arrives (debounced by a
// second), so right after DDL the shared session's answer depends on timing; a new session's
// does not.
func (e *Env) FreshMetadata() (*gocql.KeyspaceMetadata, error) {
	s, err := e.Cluster().CreateSession()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.KeyspaceMetadata(e.Keyspace)
}

// freshTable reads the keyspace's metadata on a new session and returns it with table tbl's,
// or records what failed (the read, or a missing table) and returns nils.
func freshTable(e *Env, tbl string) (*gocql.KeyspaceMetadata, *gocql.TableMetadata) {
	md, err := e.FreshMetadata()
	if err != nil {
		e.R.Record("metadata", err)
		return nil, nil
	}
	t := md.Tables[tbl]
	if t == nil {
		e.R.Record("table missing", nil)
		return nil, nil
	}
	return md, t
}
