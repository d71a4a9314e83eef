package main

import "github.com/cqlbridge/cqlbridge/native"

func nativeCount(ks string) native.Statement {
	return native.Query("SELECT count(*) FROM " + ks + ".tweets WHERE timeline = 'me'")
}
