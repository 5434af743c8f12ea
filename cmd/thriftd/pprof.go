package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// servePprof serves Go's runtime profiles (CPU, heap, allocations,
// goroutines, mutex and block contention) under /debug/pprof/ on addr, for
// `go tool pprof`; see the Performance section of the README. It is off
// unless -pprof is given, and should listen on loopback only: profiles
// reveal the process's internals. The caller closes the returned server
// when thriftd stops; the address is where it listens (addr may name port
// 0).
func servePprof(addr string) (*http.Server, net.Addr, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("-pprof: cannot listen for profiles: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	return srv, l.Addr(), nil
}
