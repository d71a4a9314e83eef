// Package doccheck checks the documentation rules of the repository's Go packages: every package
// has a package doc comment, starting "Package name" ("Command" for a program), and at least one
// runnable Example (one with an output comment, which go test runs), and every exported
// identifier has a doc comment (directives such as //go:noinline alone are none). Its test applies the rules to
// the whole module, so `make test` fails when a change breaks them.
package doccheck
