// Package layers declares the order of thriftd's layers, from the ground
// floor up, and its test checks the import graph against it: a package
// imports only packages of its own layer or of the layers below, and at
// the folder level too (no folder imports from a folder that holds a
// package of a higher layer than its own lowest one). docs/architecture.md
// draws the same picture for a reader.
package layers

// A Layer is a named set of packages, by path inside the module: a path
// holds the package of that folder and every package under it unless a
// longer path names them elsewhere.
type Layer struct {
	Name     string
	Packages []string
}

// Order is thriftd's layers, lowest first.
var Order = []Layer{
	{"types", []string{"marshal", "dht", "gen-go", "config", "tlsconf"}},
	{"schema", []string{"schema"}},
	{"engine", []string{"engine"}},
	{"stores", []string{"engine/ldbstore", "engine/cqlstore", "engine/storetest"}},
	{"catalog", []string{"catalog"}},
	{"services", []string{"auth", "rpcmetrics", "handler", "handler19", "admin"}},
	{"server", []string{"server", "dialect", "migrate"}},
	{"tools", []string{"settings", "cli", "sstablejson", "transfer"}},
	{"cmd", []string{"cmd", "deploy"}},
	{"tests", []string{"internal", "test"}},
}

// Siblings are packages of one layer that must not import each other:
// the two API services share only what lies below them, and so do the
// two stores.
var Siblings = [][]string{
	{"handler", "handler19"},
	{"engine/ldbstore", "engine/cqlstore"},
}
