package catalog

import (
	"strings"

	"github.com/thriftd/thriftd/schema"
)

// Adopted keyspaces (Options.Adopted) are CQL keyspaces thriftd did not
// create and serves in place (engine/cqlstore, adoptserve.go). The
// catalog serves them beside its own schema, so describe_keyspaces lists
// them and data calls find them, but never records them and never changes
// them: every system_* call naming one is refused, since their schema
// belongs to the CQL applications and to Cassandra (change it with CQL,
// then restart thriftd).

// adoptedView is the schema served for one state: its schema with the
// adopted keyspaces added.
type adoptedView struct {
	base   *state
	served *schema.Schema
}

// served is the schema served while st is current.
func (c *Catalog) served(st *state) *schema.Schema {
	if len(c.opts.Adopted) == 0 {
		return st.schema
	}
	if v := c.view.Load(); v != nil && v.base == st {
		return v.served
	}
	s := cloneSchema(st.schema)
	for _, ks := range c.opts.Adopted {
		s.Keyspaces[ks.Name] = ks
	}
	c.view.Store(&adoptedView{base: st, served: s})
	return s
}

// refuseAdopted refuses a schema change of keyspace ks when it is
// adopted.
func (c *Catalog) refuseAdopted(ks string) error {
	for _, a := range c.opts.Adopted {
		if strings.EqualFold(a.Name, ks) {
			return invalid("Keyspace %s is a CQL keyspace thriftd serves in place (-cassandra-adopt); its schema can only be changed with CQL, then thriftd restarted", a.Name)
		}
	}
	return nil
}
