# cqlbridge: the commands a developer runs. See README.md.

.PHONY: run test check cassandra-up cassandra-down

# The main job on the embedded default: the quickstart against an in-process cqlsim.
run:
	go run ./examples/quickstart

# Every test: Cassandra up, static checks, go test -race ./... with CQL_HOSTS, fuzz and extra suites,
# the cluster-dependent packages on three nodes (CQL_CLUSTER_NODES=0 leaves them out),
# Cassandra down even when tests fail.
test:
	scripts/test

# Static checks only (no server).
check:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	go vet ./...

cassandra-up:
	scripts/cassandra up

cassandra-down:
	scripts/cassandra down
