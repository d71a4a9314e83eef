package gocql

import "github.com/cqlbridge/cqlbridge/native"

// Native returns the native session this Session runs on. It shares the connections, the
// prepared statement cache and the topology, so code can move call sites to the native API
// one at a time. Closing the gocql Session closes it too. Its Config.SchemaAgreementTimeout
// is disabled: this Session waits for schema agreement after DDL itself, with gocql's rules
// (ClusterConfig.MaxWaitSchemaAgreement); after DDL run through the native session, call its
// AwaitSchemaAgreement, or run the DDL through this Session.
func (s *Session) Native() *native.Session { return s.native }
