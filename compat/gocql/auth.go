package gocql

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/cqlbridge/cqlbridge/native"
)

// authAdapter drives a gocql Authenticator through the native core's conversation API. It
// is a native.HostAuthenticator, so that AuthProvider receives the host, as in gocql.
type authAdapter struct{ cfg *ClusterConfig }

// Start begins an exchange for an unknown host (the native core calls StartHost).
func (a authAdapter) Start(class string) (native.AuthExchange, []byte, error) {
	return a.start(nil, class)
}

// StartHost begins one connection's exchange with host, which AuthProvider gets as gocql
// v1.7.0 gives it (see dialHostInfo).
func (a authAdapter) StartHost(host native.Host, class string) (native.AuthExchange, []byte, error) {
	return a.start(dialHostInfo(host, a.cfg), class)
}

// start runs the first round as gocql's Conn does: the authenticator (AuthProvider's for the
// host, else Authenticator) gets the server's authenticator class, and the authenticator it
// returns answers the next round (none: no further round and no Success call).
func (a authAdapter) start(h *HostInfo, class string) (native.AuthExchange, []byte, error) {
	auth := a.cfg.Authenticator
	if a.cfg.AuthProvider != nil {
		if err := guardAuth("the AuthProvider", func() (err error) {
			auth, err = a.cfg.AuthProvider(h)
			return err
		}); err != nil {
			return nil, nil, &handshakeError{err}
		}
	}
	if auth == nil {
		return nil, nil, &handshakeError{fmt.Errorf("authentication required (using %q)", class)}
	}
	var resp []byte
	var next Authenticator
	if err := guardAuth(authName(auth), func() (err error) {
		resp, next, err = auth.Challenge([]byte(class))
		return err
	}); err != nil {
		return nil, nil, &handshakeError{err}
	}
	return &authExchange{next: next}, resp, nil
}

// guardAuth runs f, a call of the application's Authenticator or AuthProvider (what names
// it), and turns a panic in it into an error: gocql v1.7.0 calls them in a goroutine of its
// own, where the panic ends the program (docs/deviations.md G66).
func guardAuth(what string, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("gocql: %s panicked: %v", what, p)
		}
	}()
	return f()
}

// authName names an Authenticator in guardAuth's error.
func authName(a Authenticator) string { return fmt.Sprintf("the Authenticator (%T)", a) }

// authExchange follows the authenticator gocql's Challenge hands back for the next round.
type authExchange struct {
	next Authenticator
}

func (x *authExchange) Challenge(token []byte) ([]byte, error) {
	if x.next == nil {
		// gocql v1.7.0 calls Challenge on the nil authenticator and panics.
		return nil, &handshakeError{errors.New("gocql: unexpected authentication challenge: the Authenticator returned no authenticator for another round")}
	}
	var resp []byte
	var next Authenticator
	if err := guardAuth(authName(x.next), func() (err error) {
		resp, next, err = x.next.Challenge(token)
		return err
	}); err != nil {
		return nil, &handshakeError{err}
	}
	x.next = next
	return resp, nil
}

func (x *authExchange) Success(token []byte) error {
	if x.next == nil {
		return nil // as gocql: no authenticator returned, no Success call
	}
	if err := guardAuth(authName(x.next), func() error { return x.next.Success(token) }); err != nil {
		return &handshakeError{err}
	}
	return nil
}

// handshakeError is an error of a connection's authentication met in the shim (gocql's own,
// or the application's Authenticator's or AuthProvider's): gocql returns it as it is.
type handshakeError struct{ err error }

func (e *handshakeError) Error() string { return e.err.Error() }
func (e *handshakeError) Unwrap() error { return e.err }

// handshakeFailure returns the error gocql v1.7.0 reports when the first connection fails to
// authenticate (the shim's or the application's error, or the server's refusal: its message,
// gocql's errorFrame), to verify the server's TLS certificate or to be accepted by the TLS
// server (crypto/tls's error), or is closed by the server during the handshake (io.EOF); nil
// for any other failure.
func handshakeFailure(err error) error {
	var he *handshakeError
	if errors.As(err, &he) {
		return he
	}
	var cve *tls.CertificateVerificationError
	if errors.As(err, &cve) {
		return cve
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "remote error" { // a TLS alert from the server
		return op
	}
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	var ae *native.AuthenticationError
	if errors.As(err, &ae) {
		return convertError(ae)
	}
	return nil
}
