// Package policy builds query plans: the order in which a request tries the nodes of the
// cluster. A Plan is a small value that lives on the caller's stack; building and walking
// one allocates nothing.
package policy
