# Regenerate every binding of the two interfaces, cassandra.thrift (0.6) and
# cassandra19.thrift (19.x): Go for the server, Python and Ruby for the
# clients and the tests. Needs Debian's thrift-compiler (0.17).
THRIFT ?= thrift
GO_PREFIX = github.com/thriftd/thriftd/gen-go/
# What generate writes besides gen-go/ (test/run-all checks them too).
PY_OUT = clients/python/cassandra clients/python/cassandra19
RB_OUT = clients/ruby/lib/cassandra_thrift clients/ruby/lib/cassandra_thrift19

.PHONY: generate build test bench
generate:
	rm -rf gen-go $(PY_OUT) $(RB_OUT)
	mkdir -p gen-go clients/python clients/ruby/lib
	for idl in cassandra.thrift cassandra19.thrift; do \
		$(THRIFT) --gen go:package_prefix=$(GO_PREFIX) -out gen-go $$idl && \
		$(THRIFT) --gen py -out clients/python $$idl && \
		$(THRIFT) --gen rb:namespaced -out clients/ruby/lib $$idl || exit 1; \
	done
	rm -rf gen-go/cassandra/cassandra-remote gen-go/cassandra19/cassandra-remote
	rm -f clients/python/__init__.py
	gofmt -w gen-go

build:
	go build -o bin/ ./cmd/...

test:
	./test/run-all

bench:
	./test/bench
