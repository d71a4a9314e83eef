package proto

import (
	"bytes"
	"fmt"
	"slices"
)

// Authenticator starts SASL exchanges for connections whose server answers STARTUP with
// AUTHENTICATE. It must be safe for concurrent use: each connection calls Start once and keeps
// the returned exchange to itself.
type Authenticator interface {
	// Start begins an exchange with the server's authenticator class (for example
	// "org.apache.cassandra.auth.PasswordAuthenticator") and returns the exchange and the
	// initial token, sent in the first AUTH_RESPONSE.
	Start(authenticatorClass string) (AuthExchange, []byte, error)
}

// AuthExchange is one connection's SASL exchange.
type AuthExchange interface {
	// Challenge answers an AUTH_CHALLENGE token with the next AUTH_RESPONSE token.
	Challenge(token []byte) ([]byte, error)
	// Success receives the AUTH_SUCCESS token (possibly nil) that ends the exchange.
	Success(token []byte) error
}

// PasswordAuthenticator authenticates with SASL PLAIN ("\x00username\x00password"), as
// Cassandra's PasswordAuthenticator and ScyllaDB expect.
type PasswordAuthenticator struct {
	Username string
	Password string
	// AllowedAuthenticators, when not empty, lists the server authenticator classes the
	// credentials may be sent to; any other class fails the connection.
	AllowedAuthenticators []string
}

// Start checks the authenticator class and returns the PLAIN token. A nil
// *PasswordAuthenticator (one left unset, in an Authenticator interface) fails.
func (p *PasswordAuthenticator) Start(class string) (AuthExchange, []byte, error) {
	if p == nil {
		return nil, nil, fmt.Errorf("proto: nil *PasswordAuthenticator for server authenticator %q: no credentials to send", class)
	}
	if len(p.AllowedAuthenticators) > 0 && !slices.Contains(p.AllowedAuthenticators, class) {
		return nil, nil, fmt.Errorf("proto: server authenticator %q is not in the allowed list %v", class, p.AllowedAuthenticators)
	}
	var b bytes.Buffer
	b.WriteByte(0)
	b.WriteString(p.Username)
	b.WriteByte(0)
	b.WriteString(p.Password)
	return plainExchange{}, b.Bytes(), nil
}

type plainExchange struct{}

// Challenge fails: PLAIN is a single-step mechanism.
func (plainExchange) Challenge(token []byte) ([]byte, error) {
	return nil, fmt.Errorf("proto: unexpected SASL challenge (%d bytes) for PLAIN authentication", len(token))
}

// Success accepts the end of the exchange.
func (plainExchange) Success([]byte) error { return nil }
