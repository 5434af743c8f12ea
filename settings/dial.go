package settings

import "net"

// DialHost is the host a program on the same machine dials to reach a
// server listening on host: the wildcard hosts "" and 0.0.0.0 become
// 127.0.0.1 and :: becomes ::1; any other host is returned unchanged. The
// operator tools use it on the listen addresses of thriftd.yaml.
func DialHost(host string) string {
	if host == "" {
		return "127.0.0.1"
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil || !ip.IsUnspecified():
		return host
	case ip.To4() != nil:
		return "127.0.0.1"
	}
	return "::1"
}
