package proto

import (
	"fmt"
	"net/netip"
)

// Event is a server-pushed EVENT message (after REGISTER). Type says which fields are set:
// TOPOLOGY_CHANGE and STATUS_CHANGE set Change and Addr, SCHEMA_CHANGE sets Schema (and Change
// to the same value as Schema.Change).
type Event struct {
	Type   string         // EventTopologyChange, EventStatusChange or EventSchemaChange
	Change string         // NEW_NODE, REMOVED_NODE, MOVED_NODE, UP, DOWN, CREATED, UPDATED, DROPPED
	Addr   netip.AddrPort // the node concerned by a topology or status change
	Schema SchemaChange
}

// Opcode returns OpEvent.
func (*Event) Opcode() Opcode { return OpEvent }

// String describes the event, e.g. "STATUS_CHANGE UP 127.0.0.2:9042".
func (e *Event) String() string {
	if e.Type == EventSchemaChange {
		if e.Schema.Name != "" {
			return fmt.Sprintf("%s %s %s %s.%s", e.Type, e.Schema.Change, e.Schema.Target, e.Schema.Keyspace, e.Schema.Name)
		}
		return fmt.Sprintf("%s %s %s %s", e.Type, e.Schema.Change, e.Schema.Target, e.Schema.Keyspace)
	}
	return fmt.Sprintf("%s %s %s", e.Type, e.Change, e.Addr)
}

func decodeEvent(d *decoder, e *Event) {
	e.Type = d.string_("event type")
	switch e.Type {
	case EventTopologyChange, EventStatusChange:
		e.Change = d.string_("event change")
		e.Addr = d.inet("event address")
	case EventSchemaChange:
		decodeSchemaChange(d, &e.Schema)
		e.Change = e.Schema.Change
	default:
		d.failf("unknown event type %q", e.Type)
	}
}
