package config

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that every failure is an
// *Error, and that every configuration it accepts satisfies 0.6's start-up
// checks.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"storage-conf-0.6-default.xml", "storage-conf-0.6-test.xml", "storage-conf-bloggyappy.xml"} {
		f.Add([]byte(readFixture(f, name)))
	}
	f.Add([]byte(minimal))
	f.Add([]byte(withCF(`<ColumnFamily Name="C" ColumnType="Super" Comment="x"><Comment>y</Comment></ColumnFamily>`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "f.xml")
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.File != "f.xml" {
				t.Fatalf("error %v is not an *Error naming the file", err)
			}
			return
		}
		switch {
		case c.CommitLogSync != "periodic" && c.CommitLogSync != "batch":
			t.Fatalf("CommitLogSync %q", c.CommitLogSync)
		case !strings.Contains(c.Partitioner, "."):
			t.Fatalf("Partitioner %q", c.Partitioner)
		case len(c.Keyspaces) == 0 || len(c.Seeds) == 0 || len(c.DataFileDirectories) == 0:
			t.Fatal("accepted without keyspaces, seeds or data directories")
		case c.ClusterName == "" || c.CommitLogDirectory == "" || c.SavedCachesDirectory == "":
			t.Fatal("accepted without a required element")
		case c.ConcurrentReads < 2 || c.ConcurrentWrites < 2 || c.IndexInterval <= 0:
			t.Fatal("accepted a value 0.6 refuses")
		}
		for _, ks := range c.Keyspaces {
			if strings.EqualFold(ks.Name, "system") {
				t.Fatal("accepted a keyspace named system")
			}
			for _, cf := range ks.ColumnFamilies {
				if strings.Contains(cf.Name, "-") || (cf.ColumnType == "Standard") != (cf.CompareSubcolumnsWith == "") {
					t.Fatalf("bad column family %+v", cf)
				}
			}
		}
	})
}

// FuzzProperties checks that the properties reader never panics.
func FuzzProperties(f *testing.F) {
	f.Add([]byte(readFixture(f, "passwd.properties")))
	f.Add([]byte("a\\\n b=c\\u0041\r\n!x\n#y\\\nk:v"))
	f.Fuzz(func(t *testing.T, data []byte) {
		props, err := parseProperties(data)
		if err == nil {
			for _, p := range props {
				_ = javaSplitComma(p.value)
			}
		}
	})
}
