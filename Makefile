# Regenerate every binding of cassandra.thrift: Go for the server, Python and
# Ruby for the clients. Needs Debian's thrift-compiler (0.17).
THRIFT ?= thrift
GO_PREFIX = github.com/thriftd/thriftd/gen-go/

.PHONY: generate build test bench
generate:
	rm -rf gen-go clients/python/cassandra clients/ruby/lib/cassandra_thrift
	mkdir -p gen-go clients/python clients/ruby/lib
	$(THRIFT) --gen go:package_prefix=$(GO_PREFIX) -out gen-go cassandra.thrift
	rm -rf gen-go/cassandra/cassandra-remote
	$(THRIFT) --gen py -out clients/python cassandra.thrift
	rm -f clients/python/__init__.py
	$(THRIFT) --gen rb:namespaced -out clients/ruby/lib cassandra.thrift
	gofmt -w gen-go

build:
	go build -o bin/ ./cmd/...

test:
	./test/run-all

bench:
	./test/bench
