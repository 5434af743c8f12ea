// Package config reads Cassandra 0.6's storage-conf.xml into a Config:
// every element 0.6.13 read, with 0.6's defaults and start-up errors, plus
// thriftd's own server settings. It also reads SimpleAuthenticator's two
// property files (LoadAuth).
//
// # Fidelity
//
// A file that 0.6.13 started with loads here with the same values, and a
// file it refused is refused with 0.6's message (Error.Msg), prefixed by the
// file and the element at fault:
//
//	storage-conf.xml: /Storage/Keyspaces/Keyspace[@Name='Foo']/ColumnFamily[@Name='Bar']: ColumnFamily names cannot contain hyphens
//
// The reading rules are 0.6's: element names are case-sensitive; an empty
// element counts as absent; values are used as written, without trimming;
// numbers parse as Java's Integer.parseInt, Long.parseLong and
// Double.parseDouble; true and false are accepted in any case. Where 0.6
// crashed instead of explaining (a missing DiskAccessMode or ClusterName,
// an empty Seed), the error is thriftd's, in the same style. thriftd also
// refuses a keyspace, or a column family within a keyspace, defined twice,
// which 0.6 accepted with confusing results: the later definition replaced
// the earlier one, except for the parts 0.6 looked up by name, which came
// from the first.
//
// # What is not done here
//
// Nothing touches the network or the disk besides reading the file: Seed
// and ListenAddress host names are kept as written (0.6 resolved them; a
// single node never dials them), and directories are neither created nor
// made absolute (relative ones resolve against the working directory, as in
// 0.6). Comparator, authenticator, replica placement and snitch class names
// are kept as written; the packages that implement them validate them
// (the schema package resolves comparators with marshal.Lookup).
// The partitioner is the one class name completed here: a name without a
// '.' gets the org.apache.cassandra.dht. prefix, as 0.6 did.
//
// The built-in system keyspace is not part of Config; the schema package
// adds it. A configured keyspace named "system", in any case, is refused.
//
// See docs/configuration.md for every element and what thriftd does with it.
package config
