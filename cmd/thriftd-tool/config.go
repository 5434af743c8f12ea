package main

import "github.com/thriftd/thriftd/settings"

// fileAdmin is what thriftd-tool takes from thriftd's configuration file,
// each value with where in the file it was found.
type fileAdmin struct {
	// addr is where to reach the admin endpoint from this machine; "" when
	// the file turns it off.
	addr, addrOrigin string
	// tokenFile holds the bearer token; "" when the endpoint needs none.
	tokenFile, tokenOrigin string
}

// readConfig reads the configuration file at path as thriftd does
// (settings.Load): a thriftd.yaml or a storage-conf.xml, whose errors name
// the file, line and key.
func readConfig(path string) (fileAdmin, error) {
	eff, err := settings.Load(path)
	if err != nil {
		return fileAdmin{}, err
	}
	a := eff.Admin
	// The deprecated alias wins over admin.listen, as in thriftd.
	addr, key := a.Listen, "admin.listen"
	if a.Pprof != "" {
		addr, key = a.Pprof, "admin.pprof"
	}
	fa := fileAdmin{addrOrigin: eff.Origin(key).String() + ": " + key, tokenFile: a.TokenFile}
	if a.TokenFile != "" {
		fa.tokenOrigin = eff.Origin("admin.token_file").String() + ": admin.token_file"
	}
	if addr != "off" {
		fa.addr = settings.DialAddr(addr)
	}
	return fa, nil
}
