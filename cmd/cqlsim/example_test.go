package main

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/cqlbridge/cqlbridge/native"
)

// Example runs the command with two nodes on free ports, reads the ready line, queries the
// cluster through it and stops the command.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	pr, done := runInBackground(ctx, "--listen", "127.0.0.1:0", "--nodes", "2")
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		log.Fatal(err)
	}
	addrs := strings.Split(strings.TrimPrefix(strings.TrimSpace(line), "cqlsim ready "), ",")
	fmt.Println("nodes:", len(addrs))

	s, err := native.Connect(ctx, native.Config{Hosts: addrs[:1]})
	if err != nil {
		log.Fatal(err)
	}
	res, err := s.Execute(ctx, native.Query("SELECT peer FROM system.peers"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("peers of the first node:", res.Len())
	s.Close()

	cancel()
	fmt.Println("stopped:", <-done)
	// Output:
	// nodes: 2
	// peers of the first node: 1
	// stopped: <nil>
}
