// Package cql is cqlsim's CQL lexer and recursive-descent parser. It turns one statement (or a
// BATCH) into an AST that the engine analyses against the schema. Syntax errors carry the line
// and column of the offending token and use Cassandra's wording ("line 1:9 no viable alternative
// at input 'FORM'"), so clients see the messages a real node would send.
package cql
