package cqlsim_test

import (
	"net"
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

func TestMultiNodeSharesOnePort(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	addrs := c.Addrs()
	if len(addrs) != 3 {
		t.Fatalf("Addrs = %v, want 3", addrs)
	}
	var port string
	for i, a := range addrs {
		host, p, err := net.SplitHostPort(a)
		if err != nil {
			t.Fatal(err)
		}
		if want := "127.0.0." + string(rune('1'+i)); host != want {
			t.Errorf("node %d host = %s, want %s", i, host, want)
		}
		if port == "" {
			port = p
		} else if p != port {
			t.Errorf("node %d port %s differs from node 0's %s", i, p, port)
		}
		// Every node accepts connections and answers the handshake.
		rc := dialRaw(t, a)
		rc.send(primitive.ProtocolVersion4, 1, &message.Options{})
		if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported {
			t.Errorf("node %s: OPTIONS answered with %v", a, f.Body.Message)
		}
	}
}

func TestFixedPortAndCloseReleasesIt(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	addr := c.Addrs()[0]
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	// The port is free again: a new cluster can listen on exactly that address.
	c2, err := cqlsim.Start(cqlsim.Options{Listen: addr})
	if err != nil {
		t.Fatalf("restarting on %s: %v", addr, err)
	}
	defer c2.Close()
	if c2.Addrs()[0] != addr {
		t.Errorf("Addrs = %v, want %s", c2.Addrs(), addr)
	}
	// A port already taken is an error, not a silent move to another port.
	if c3, err := cqlsim.Start(cqlsim.Options{Listen: addr}); err == nil {
		c3.Close()
		t.Fatalf("second cluster on %s started", addr)
	}
}

func TestStartRejectsBadOptions(t *testing.T) {
	for _, opts := range []cqlsim.Options{
		{Listen: "localhost"},
		{Listen: "localhost:0"},
		{Listen: "[::1]:0"},
		{Listen: "127.0.0.1:99999"},
		{MaxProtocolVersion: 2},
		{Listen: "127.255.255.255:0", Nodes: 2},
	} {
		c, err := cqlsim.Start(opts)
		if err == nil {
			c.Close()
			t.Errorf("Start(%+v) succeeded, want an error", opts)
		} else if !strings.HasPrefix(err.Error(), "cqlsim: ") {
			t.Errorf("Start(%+v) error %q does not say it comes from cqlsim", opts, err)
		}
	}
}
