package gocql

import "github.com/cqlbridge/cqlbridge/native"

// Native returns the native session this Session runs on. It shares the connections, the
// prepared statement cache and the topology, so code can move call sites to the native API
// one at a time. Closing the gocql Session closes it too. Its Config.SchemaAgreementTimeout
// is disabled: this Session waits for schema agreement after DDL itself, with gocql's rules
// (ClusterConfig.MaxWaitSchemaAgreement); after DDL run through the native session, call its
// AwaitSchemaAgreement, or run the DDL through this Session.
//
// Statements run on the native session take this Session's keyspace and ClusterConfig's
// Consistency and PageSize as their defaults, and nothing this Session applies per query:
// they are routed round robin whatever the HostSelectionPolicy (not to their partition's
// replicas), have no timeout (ClusterConfig.Timeout does not bound them; give the context a
// deadline or use Statement.WithTimeout), and the RetryPolicy, QueryObserver and Tracer do
// not see them (per statement, Statement.WithRetryPolicy and WithObserver set a policy and
// an observer, and WithTracing traces it, its trace id in Result.TraceID).
func (s *Session) Native() *native.Session { return s.native }
