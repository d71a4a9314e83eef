package native

import "github.com/cqlbridge/cqlbridge/native/proto"

// Authenticator answers the server's authentication exchange (SASL, as the native protocol
// frames it) on each new connection: Start is called once per connection with the server's
// authenticator class name and returns the exchange and the initial token. It is the
// protocol package's interface, so any SASL mechanism can be plugged in.
type Authenticator = proto.Authenticator

// AuthExchange is one connection's authentication exchange (challenges and the final
// success token).
type AuthExchange = proto.AuthExchange

// PasswordAuthenticator authenticates with a user name and password (SASL PLAIN), as
// Cassandra's and ScyllaDB's PasswordAuthenticator expect. Use it as
// &PasswordAuthenticator{Username: ..., Password: ...}; AllowedAuthenticators, when not
// empty, lists the server authenticator classes the credentials may be sent to.
type PasswordAuthenticator = proto.PasswordAuthenticator

// HostAuthenticator is an Authenticator that is told which node it authenticates to: when
// Config.Authenticator implements it, each connection calls StartHost instead of Start, with
// the node it dialled. For a node the session knows from the cluster's system tables, host
// carries what they say (data center, rack, host id, ...), so credentials can be chosen by
// data center; for a contact point dialled before that (or one that is not in them), only
// host.Addr (host:port) is set.
type HostAuthenticator interface {
	Authenticator
	StartHost(host Host, authenticatorClass string) (AuthExchange, []byte, error)
}

// hostAuth binds a HostAuthenticator to the node of one dial, in the form the connection
// layer asks for.
type hostAuth struct {
	HostAuthenticator
	host Host
}

// Start begins the exchange with the bound node.
func (a hostAuth) Start(class string) (AuthExchange, []byte, error) {
	return a.HostAuthenticator.StartHost(a.host, class)
}

// Unwrap returns the user's authenticator, for error messages that name its type.
func (a hostAuth) Unwrap() Authenticator { return a.HostAuthenticator }

// authenticatorFor returns Config.Authenticator, bound to the node at addr when it is a
// HostAuthenticator.
func (s *Session) authenticatorFor(addr string) Authenticator {
	ha, ok := s.cfg.Authenticator.(HostAuthenticator)
	if !ok {
		return s.cfg.Authenticator
	}
	return hostAuth{HostAuthenticator: ha, host: s.hostAt(addr)}
}
