package native

import (
	"errors"
	"fmt"
)

// Authenticator answers the server's authentication exchange (SASL, as the native protocol
// frames it) on each new connection. NewConversation is called once per connection with the
// server's authenticator class name; the returned conversation produces the responses.
type Authenticator interface {
	NewConversation(class string) (AuthConversation, error)
}

// AuthConversation is one connection's authentication exchange.
type AuthConversation interface {
	// InitialResponse returns the first token sent after the server's AUTHENTICATE.
	InitialResponse() ([]byte, error)
	// Challenge answers a server challenge (AUTH_CHALLENGE) with the next token.
	Challenge(token []byte) ([]byte, error)
	// Success receives the final server token (AUTH_SUCCESS); an error fails the connection.
	Success(token []byte) error
}

// PasswordAuthenticator authenticates with a user name and password (SASL PLAIN), as
// Cassandra's PasswordAuthenticator and ScyllaDB's PasswordAuthenticator expect. Any server
// authenticator class is accepted unless AllowedClasses is non-empty.
type PasswordAuthenticator struct {
	Username string
	Password string
	// AllowedClasses, when non-empty, lists the server authenticator classes the
	// credentials may be sent to; any other class fails the connection.
	AllowedClasses []string
}

// NewConversation starts a PLAIN exchange.
func (a PasswordAuthenticator) NewConversation(class string) (AuthConversation, error) {
	if len(a.AllowedClasses) > 0 {
		ok := false
		for _, c := range a.AllowedClasses {
			if c == class {
				ok = true
				break
			}
		}
		if !ok {
			return nil, fmt.Errorf("native: server authenticator %q is not in PasswordAuthenticator.AllowedClasses", class)
		}
	}
	return passwordConversation{user: a.Username, pass: a.Password}, nil
}

type passwordConversation struct{ user, pass string }

func (c passwordConversation) InitialResponse() ([]byte, error) {
	b := make([]byte, 0, 2+len(c.user)+len(c.pass))
	b = append(b, 0)
	b = append(b, c.user...)
	b = append(b, 0)
	b = append(b, c.pass...)
	return b, nil
}

func (c passwordConversation) Challenge([]byte) ([]byte, error) {
	return nil, errors.New("native: password authentication: unexpected server challenge")
}

func (c passwordConversation) Success([]byte) error { return nil }
