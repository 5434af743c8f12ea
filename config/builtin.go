package config

// BuiltinPath names the built-in configuration in messages and Config.Path.
const BuiltinPath = "(built-in storage configuration)"

// builtinText is the configuration of a thriftd.yaml that names no
// storage-conf.xml (storage_conf: ""): the stock 0.6 storage-conf.xml's
// settings, and no keyspace. Keyspaces are then created through the
// 19.x API.
const builtinText = `<Storage>
  <ClusterName>Test Cluster</ClusterName>
  <AutoBootstrap>false</AutoBootstrap>
  <HintedHandoffEnabled>true</HintedHandoffEnabled>
  <IndexInterval>128</IndexInterval>
  <Keyspaces/>
  <Authenticator>org.apache.cassandra.auth.AllowAllAuthenticator</Authenticator>
  <Partitioner>org.apache.cassandra.dht.RandomPartitioner</Partitioner>
  <InitialToken></InitialToken>
  <SavedCachesDirectory>/var/lib/cassandra/saved_caches</SavedCachesDirectory>
  <CommitLogDirectory>/var/lib/cassandra/commitlog</CommitLogDirectory>
  <DataFileDirectories>
    <DataFileDirectory>/var/lib/cassandra/data</DataFileDirectory>
  </DataFileDirectories>
  <Seeds>
    <Seed>127.0.0.1</Seed>
  </Seeds>
  <RpcTimeoutInMillis>10000</RpcTimeoutInMillis>
  <ListenAddress>localhost</ListenAddress>
  <ThriftAddress>localhost</ThriftAddress>
  <ThriftPort>9160</ThriftPort>
  <ThriftFramedTransport>false</ThriftFramedTransport>
  <DiskAccessMode>auto</DiskAccessMode>
  <CommitLogSync>periodic</CommitLogSync>
  <CommitLogSyncPeriodInMS>10000</CommitLogSyncPeriodInMS>
  <GCGraceSeconds>864000</GCGraceSeconds>
</Storage>
`

// Builtin returns the configuration of a thriftd.yaml that names no
// storage-conf.xml: 0.6's stock settings and no keyspace.
func Builtin() *Config {
	c, err := ParseWith([]byte(builtinText), BuiltinPath, Options{AllowNoKeyspaces: true})
	if err != nil {
		panic("the built-in storage configuration must parse: " + err.Error())
	}
	return c
}
