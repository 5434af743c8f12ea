// Package settings holds thriftd's own settings (addresses, limits, logging,
// authentication files, backend, admin endpoint) and resolves them from
// their four layers, each overriding the one before:
//
//  1. the default of each setting (the tags of Settings);
//  2. the Cassandra 0.6 storage-conf.xml served, for the settings it has
//     (ThriftAddress and ThriftPort, the first DataFileDirectory,
//     CommitLogSync, thriftd's Thrift* limits; the authentication files
//     beside it), read by the config package, which is left as it is;
//  3. thriftd.yaml, when the configuration file is one;
//  4. the command-line flags.
//
// The configuration file is a thriftd.yaml or a storage-conf.xml, told
// apart by content (IsXML). A thriftd.yaml names the storage-conf.xml it
// serves (storage_conf, by default storage-conf.xml beside it); relative
// file names in a thriftd.yaml resolve against its directory, while those
// inside storage-conf.xml keep 0.6's rule (the working directory) and those
// given as flags are relative to the working directory. storage-conf.xml is
// read, never written.
//
// Reading thriftd.yaml is strict: an unknown key, a key given twice or a
// value of the wrong type is an error naming the file, line and column and
// the key (with the key probably meant, for a misspelt one). Effective.YAML
// prints the result in the same format, with where each value came from.
//
// Load is for any command that needs thriftd's addresses from the same
// file; thriftd itself uses AddFlags and Resolve.
package settings
