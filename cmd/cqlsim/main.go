// Command cqlsim runs cqlsim, the embedded in-memory CQL server, as a process: for driver tests in
// other languages, demos and manual exploration with cqlsh.
//
//	go run ./cmd/cqlsim --listen 127.0.0.1:19042 --nodes 3
//
// (Without --listen it listens on 127.0.0.1:9042, Cassandra's port, which is taken where a
// Cassandra node runs on the same address: the examples here use 19042.)
// When every node accepts connections it prints exactly one line to standard output,
//
//	cqlsim ready 127.0.0.1:19042,127.0.0.2:19042,127.0.0.3:19042
//
// and it serves until SIGINT or SIGTERM, then closes all connections and exits 0. Port 0 picks a
// free port (the same on every node's address); read it from the ready line.
//
// A cluster of several data centres gives each node its data centre (and rack) in order:
//
//	go run ./cmd/cqlsim --listen 127.0.0.1:19042 --nodes 4 --datacenters dc1,dc1,dc2,dc2 --racks r1,r2,r1,r2
//
// ScyllaDB nodes, for shard-aware and tablet-aware drivers, have shards, a shard-aware port and,
// optionally, tables split into tablets:
//
//	go run ./cmd/cqlsim --listen 127.0.0.1:19042 --nodes 3 --shards 4 --shard-aware-port --tablets 16
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // -h: the usage was printed
		}
		// The package's errors name it already ("cqlsim: ..."): print one prefix.
		fmt.Fprintln(os.Stderr, "cqlsim:", strings.TrimPrefix(err.Error(), "cqlsim: "))
		os.Exit(1)
	}
}

// run parses args, starts the cluster, prints the ready line to stdout and serves until ctx ends
// or a termination signal arrives.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cqlsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:9042", "host:port of the first node; port 0 picks a free port")
	nodes := fs.Int("nodes", 1, "number of nodes, on consecutive IPv4 addresses from the listen host")
	user := fs.String("username", "", "enable PasswordAuthenticator with this user name")
	pass := fs.String("password", "", "password for --username")
	maxVersion := fs.Int("max-protocol-version", 4, "highest native protocol version served (3, 4 or 5)")
	dcs := fs.String("datacenters", "", "comma-separated data centre of each node, in order (default: all in datacenter1); a shorter list leaves the rest in datacenter1")
	racks := fs.String("racks", "", "comma-separated rack of each node, in order (default: all in rack1)")
	shards := fs.Int("shards", 0, "emulate ScyllaDB nodes with this many shards each (0: no sharding)")
	shardPort := fs.Bool("shard-aware-port", false, "with --shards, also listen on a shard-aware port (announced in SUPPORTED and printed to stderr)")
	tablets := fs.Int("tablets", 0, "with --shards, split every table outside the system keyspaces into this many ScyllaDB tablets and offer tablets routing (TABLETS_ROUTING_V1) (0: no tablets)")
	verbose := fs.Bool("v", false, "log connections and protocol errors to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	c, err := cqlsim.Start(cqlsim.Options{
		Nodes:              *nodes,
		Listen:             *listen,
		Username:           *user,
		Password:           *pass,
		MaxProtocolVersion: *maxVersion,
		NodeDataCenters:    perNode(*dcs),
		NodeRacks:          perNode(*racks),
		Shards:             *shards,
		ShardAwarePort:     *shardPort,
		Tablets:            *tablets,
		Logger:             logger,
	})
	if err != nil {
		return err
	}
	if p := c.ShardAwarePort(); p != 0 {
		fmt.Fprintf(stderr, "cqlsim: shard-aware port %d\n", p)
	}
	if _, err := fmt.Fprintf(stdout, "cqlsim ready %s\n", strings.Join(c.Addrs(), ",")); err != nil {
		_ = c.Close()
		return err
	}
	<-ctx.Done()
	return c.Close()
}

// perNode splits a comma-separated per-node list; empty gives nil.
func perNode(list string) []string {
	if list == "" {
		return nil
	}
	return strings.Split(list, ",")
}
