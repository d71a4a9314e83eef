package gocql

import (
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// panickingAuth is an Authenticator whose Challenge panics.
type panickingAuth struct{}

func (panickingAuth) Challenge([]byte) ([]byte, Authenticator, error) {
	panic("authenticator failed")
}

func (panickingAuth) Success([]byte) error { return nil }

// An Authenticator that panics fails CreateSession with an error naming it (docs/deviations.md
// G66); gocql v1.7.0 runs the handshake in a goroutine of its own (startupCoordinator), where
// the panic ends the program, so its side is not run here. A nil *PasswordAuthenticator
// (an Authenticator left unset as a typed nil) and a panicking AuthProvider fail the same way,
// each named in the error.
func TestAuthenticatorPanicFailsCreateSessionUnlikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Username: "alice", Password: "s3cret"})
	want := map[string]string{
		"a panicking Challenge":        "gocql: the Authenticator (gocql.panickingAuth) panicked: authenticator failed",
		"a nil *PasswordAuthenticator": "gocql: the Authenticator (*gocql.PasswordAuthenticator) panicked",
		"a panicking AuthProvider":     "gocql: the AuthProvider panicked: no provider",
	}
	for name, auth := range map[string]Authenticator{
		"a panicking Challenge":        panickingAuth{},
		"a nil *PasswordAuthenticator": (*PasswordAuthenticator)(nil),
		"a panicking AuthProvider":     nil,
	} {
		c := NewCluster(sim.Addrs()[0])
		c.Port = sim.Port()
		c.Authenticator = auth
		if auth == nil {
			c.AuthProvider = func(*HostInfo) (Authenticator, error) { panic("no provider") }
		}
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: CreateSession panicked: %v", name, p)
				}
			}()
			var s *Session
			if s, err = c.CreateSession(); err == nil {
				s.Close()
			}
		}()
		if err == nil || !strings.Contains(err.Error(), want[name]) {
			t.Errorf("%s: CreateSession: %v, want an error saying %q", name, err, want[name])
		}
	}
}
