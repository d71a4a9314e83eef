package conn

import (
	"context"
	"errors"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// Config.Port connects to another port than the address's, which still names the connection,
// and Config.LocalPort sets the connection's source port (a ScyllaDB shard-aware port maps it
// to a shard).
func TestDialPortAndLocalPort(t *testing.T) {
	host, port, err := net.SplitHostPort(cqltest.Hosts(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	named := net.JoinHostPort(host, "1") // nothing listens on port 1
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for local := 50000; ; local += 7 {
		c, err := Dial(ctx, named, Config{Port: p, LocalPort: local})
		if errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EADDRNOTAVAIL) {
			if local > 60000 {
				t.Fatalf("no free local port: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Dial(%s, Port %d, LocalPort %d): %v", named, p, local, err)
		}
		defer c.Close()
		if c.Addr() != named {
			t.Errorf("Addr() = %q, want %q", c.Addr(), named)
		}
		if got := c.LocalAddr().(*net.TCPAddr).Port; got != local {
			t.Errorf("local port %d, want %d", got, local)
		}
		if _, err := c.Do(ctx, &proto.Options{}); err != nil {
			t.Errorf("OPTIONS on the connection: %v", err)
		}
		break
	}
	for name, cfg := range map[string]Config{
		"port out of range":       {Port: 70000},
		"local port out of range": {LocalPort: -1},
		"port with a dialer": {Port: p, Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return nil, errors.New("not called")
		}},
	} {
		var de *DialError
		if _, err := Dial(ctx, named, cfg); !errors.As(err, &de) || de.Step != "config" {
			t.Errorf("%s: %v, want a DialError of step config", name, err)
		}
	}
}
