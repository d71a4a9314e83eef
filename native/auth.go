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
// Config.Authenticator implements it, each connection calls StartHost, with the address it
// dialled (host:port), instead of Start.
type HostAuthenticator interface {
	Authenticator
	StartHost(addr, authenticatorClass string) (AuthExchange, []byte, error)
}
