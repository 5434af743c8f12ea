module github.com/thriftd/thriftd

go 1.26.0

require (
	github.com/apache/thrift v0.17.0
	github.com/creack/pty v1.1.24
	github.com/ergochat/readline v0.1.3
	github.com/google/uuid v1.6.0
	github.com/spaolacci/murmur3 v1.1.0
	github.com/syndtr/goleveldb v1.0.1-0.20220721030215-126854af5e6d
	golang.org/x/text v0.43.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/golang/snappy v0.0.4 // indirect
	golang.org/x/sys v0.15.0 // indirect
)
