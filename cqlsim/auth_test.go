package cqlsim_test

import (
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

func TestPasswordAuthenticator(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Username: "alice", Password: "s3cret"})
	rc := dialRaw(t, c.Addrs()[0])
	rc.send(primitive.ProtocolVersion4, 1, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	f := rc.read()
	a, ok := f.Body.Message.(*message.Authenticate)
	if !ok || a.Authenticator != "org.apache.cassandra.auth.PasswordAuthenticator" {
		t.Fatalf("STARTUP answered with %v, want AUTHENTICATE PasswordAuthenticator", f.Body.Message)
	}
	// Statements are refused until the client has authenticated.
	rc.send(primitive.ProtocolVersion4, 2, &message.Query{Query: "SELECT * FROM system.local", Options: &message.QueryOptions{}})
	if _, ok := rc.read().Body.Message.(*message.ProtocolError); !ok {
		t.Fatal("QUERY before authentication was not refused")
	}
	rc.send(primitive.ProtocolVersion4, 3, &message.AuthResponse{Token: []byte("\x00alice\x00wrong")})
	f = rc.read()
	e, ok := f.Body.Message.(*message.AuthenticationError)
	if !ok || e.ErrorMessage != "Provided username and/or password are incorrect" {
		t.Fatalf("wrong password answered with %v, want AuthenticationError", f.Body.Message)
	}
	rc.send(primitive.ProtocolVersion4, 4, &message.AuthResponse{Token: []byte("\x00alice\x00s3cret")})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeAuthSuccess || f.Header.StreamId != 4 {
		t.Fatalf("right password answered with %v, want AUTH_SUCCESS", f.Body.Message)
	}
	rc.send(primitive.ProtocolVersion4, 5, &message.Options{})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported {
		t.Fatalf("OPTIONS after authentication answered with %v", f.Body.Message)
	}
}

// TestAuthResponseAfterReady checks an AUTH_RESPONSE on a connection that is ready. Without
// credentials configured, a Cassandra 5.0.9 node (AllowAllAuthenticator) answers AUTH_SUCCESS
// (with a null token); with PasswordAuthenticator, Cassandra checks the new credentials as a
// new SASL negotiation does. Either way the connection goes on.
func TestAuthResponseAfterReady(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(nil)
	rc.send(primitive.ProtocolVersion4, 2, &message.AuthResponse{Token: []byte("\x00a\x00b")})
	f := rc.read()
	if s, ok := f.Body.Message.(*message.AuthSuccess); !ok || s.Token != nil || f.Header.StreamId != 2 {
		t.Fatalf("AUTH_RESPONSE without authentication: %v on stream %d, want AUTH_SUCCESS with a null token on 2", f.Body.Message, f.Header.StreamId)
	}
	rc.send(primitive.ProtocolVersion4, 3, &message.Options{})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported {
		t.Fatalf("OPTIONS after it: %v", f.Body.Message)
	}

	c = cqlsim.StartT(t, cqlsim.Options{Username: "alice", Password: "s3cret"})
	rc = dialRaw(t, c.Addrs()[0])
	rc.send(primitive.ProtocolVersion4, 1, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	rc.read()
	rc.send(primitive.ProtocolVersion4, 2, &message.AuthResponse{Token: []byte("\x00alice\x00s3cret")})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeAuthSuccess {
		t.Fatalf("authentication: %v", f.Body.Message)
	}
	rc.send(primitive.ProtocolVersion4, 3, &message.AuthResponse{Token: []byte("\x00alice\x00wrong")})
	if _, ok := rc.read().Body.Message.(*message.AuthenticationError); !ok {
		t.Fatal("a second AUTH_RESPONSE with a wrong password was not refused")
	}
	rc.send(primitive.ProtocolVersion4, 4, &message.AuthResponse{Token: []byte("\x00alice\x00s3cret")})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeAuthSuccess {
		t.Fatalf("a second AUTH_RESPONSE with the right password: %v, want AUTH_SUCCESS", f.Body.Message)
	}
	rc.send(primitive.ProtocolVersion4, 5, &message.Query{Query: "SELECT key FROM system.local", Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	if _, ok := rc.read().Body.Message.(*message.RowsResult); !ok {
		t.Fatal("the connection does not serve statements after a second AUTH_RESPONSE")
	}
}
