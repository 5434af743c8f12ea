package settings_test

import (
	"fmt"

	"github.com/thriftd/thriftd/settings"
)

// A command that talks to thriftd finds its addresses in the file thriftd
// serves: a thriftd.yaml, or a storage-conf.xml alone.
func ExampleLoad() {
	for _, file := range []string{"../thriftd.yaml", "../storage-conf.xml"} {
		eff, err := settings.Load(file)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("Thrift:", eff.Listen, "admin:", eff.Admin.Listen)
	}
	// Output:
	// Thrift: localhost:9160 admin: 127.0.0.1:9161
	// Thrift: localhost:9160 admin: 127.0.0.1:9161
}
