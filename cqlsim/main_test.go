package cqlsim_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: Cluster.Close must stop the
// accept loops and every connection's reader, writer and request goroutines.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
