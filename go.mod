module github.com/thriftd/thriftd

go 1.26.0

require (
	github.com/apache/cassandra-gocql-driver/v2 v2.1.2
	github.com/apache/thrift v0.17.0
	github.com/google/uuid v1.6.0
	github.com/spaolacci/murmur3 v1.1.0
	github.com/syndtr/goleveldb v1.0.1-0.20220721030215-126854af5e6d
	golang.org/x/text v0.43.0
)

require (
	github.com/golang/snappy v0.0.4 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)
