package settings

import (
	"net"
	"os"
)

// ConfigEnv names thriftd's configuration file for the operator tools
// (thriftd-cli, thriftd-tool) when their --config is not given, so that a
// shell profile can set it once.
const ConfigEnv = "THRIFTD_CONFIG"

// ToolConfig is the configuration file an operator tool reads: flag when
// --config was given (given), else $THRIFTD_CONFIG; from says which of the
// two named it, for error messages. An empty path means none.
func ToolConfig(flag string, given bool) (path, from string) {
	if given {
		return flag, "--config"
	}
	return os.Getenv(ConfigEnv), "$" + ConfigEnv
}

// DialAddr is where a program on the same machine connects to reach a
// server listening on listen (HOST:PORT, as thriftd.yaml's listen
// addresses): the wildcard hosts "" and 0.0.0.0 become 127.0.0.1 and ::
// becomes ::1; any other host, and the port, are kept. A listen that is not
// HOST:PORT is returned as it is, for the caller's own check.
func DialAddr(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if host == "" {
		host = "127.0.0.1"
	} else if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "::1"
		if ip.To4() != nil {
			host = "127.0.0.1"
		}
	}
	return net.JoinHostPort(host, port)
}
