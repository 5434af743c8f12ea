package main

import (
	"fmt"
	"net"
	"strconv"

	"github.com/thriftd/thriftd/settings"
)

// applyConfig reads thriftd's configuration file, when o names one, and
// connects where that thriftd listens: its listen address replaces the
// built-in default of --host and of --port, each unless given as a flag.
func applyConfig(o *options) error {
	if o.config == "" {
		return nil
	}
	eff, err := settings.Load(o.config)
	if err != nil {
		return err
	}
	host, port, err := dialAddr(eff.Listen)
	if err != nil {
		return fmt.Errorf("%s: listen: %w", eff.Origin("listen"), err)
	}
	if !o.given["host"] {
		o.cfg.Host = host
	}
	if !o.given["port"] {
		if port == 0 {
			return fmt.Errorf("%s: listen %s: port 0 is any free port, known only to the running thriftd; give --port",
				eff.Origin("listen"), eff.Listen)
		}
		o.cfg.Port = port
	}
	return nil
}

// dialAddr is where a client connects to reach a server listening on
// listen, HOST:PORT as settings validated it: a wildcard host (every
// interface) is reached through the loopback address of its family. Port 0
// is returned as it is, for the caller to refuse unless a flag replaces it.
func dialAddr(listen string) (host string, port int, err error) {
	host, p, err := net.SplitHostPort(settings.DialAddr(listen))
	if err != nil {
		return "", 0, err
	}
	port, err = strconv.Atoi(p)
	if err != nil {
		return "", 0, fmt.Errorf("port %q is not a number", p)
	}
	return host, port, nil
}
