package catalog

import (
	"context"
	"strings"

	"github.com/thriftd/thriftd/schema"
)

// Adopted keyspaces (Options.Adopted) are CQL keyspaces thriftd did not
// create and serves in place (engine/cqlstore, adoptserve.go). The
// catalog serves them beside its own schema, so describe_keyspaces lists
// them and data calls find them, but never records them and never changes
// them: every system_* call naming one is refused, since their schema
// belongs to the CQL applications and to Cassandra (change it with CQL).
//
// Their schema may change with CQL while thriftd runs. When the store is
// an AdoptionFollower, the catalog asks it for the adopted keyspaces as
// they now are every Poll and before describe_keyspace(s) and
// set_keyspace answer (Fresh), and serves those.

// AdoptionFollower is implemented by a store serving adopted keyspaces
// whose schema may change under it.
type AdoptionFollower interface {
	// FollowAdopted returns the adopted keyspaces as the store now
	// serves them, having read them again if the cluster's schema
	// changed since it last did (changed).
	FollowAdopted(ctx context.Context) (kss []*schema.Keyspace, changed bool, err error)
}

// adoptedView is the schema served for one state: its schema with the
// adopted keyspaces added.
type adoptedView struct {
	base    *state
	adopted []*schema.Keyspace
	served  *schema.Schema
}

// adoptedNow are the adopted keyspaces being served.
func (c *Catalog) adoptedNow() []*schema.Keyspace {
	if v := c.view.Load(); v != nil {
		return v.adopted
	}
	return c.opts.Adopted
}

// served is the schema served while st is current.
func (c *Catalog) served(st *state) *schema.Schema {
	if len(c.opts.Adopted) == 0 {
		return st.schema
	}
	for {
		v := c.view.Load()
		if v != nil && v.base == st {
			return v.served
		}
		adopted := c.opts.Adopted
		if v != nil {
			adopted = v.adopted
		}
		s := cloneSchema(st.schema)
		for _, ks := range adopted {
			s.Keyspaces[ks.Name] = ks
		}
		// Lost to Fresh or another reader: build again from the view
		// that won.
		if c.view.CompareAndSwap(v, &adoptedView{base: st, adopted: adopted, served: s}) {
			return s
		}
	}
}

// Fresh serves the adopted keyspaces as the store now holds them, when it
// is an AdoptionFollower and their schema changed. It costs the store one
// read when nothing changed.
func (c *Catalog) Fresh(ctx context.Context) error {
	f, ok := c.store.(AdoptionFollower)
	if !ok || len(c.opts.Adopted) == 0 {
		return nil
	}
	kss, changed, err := f.FollowAdopted(ctx)
	if err != nil || !changed {
		return err
	}
	for {
		v := c.view.Load()
		if c.view.CompareAndSwap(v, &adoptedView{adopted: kss}) {
			c.log.Debug("adopted keyspaces read again after a schema change on the cluster")
			return nil
		}
	}
}

// refuseAdopted refuses a schema change of keyspace ks when it is
// adopted (or was, until dropped with CQL).
func (c *Catalog) refuseAdopted(ks string) error {
	for _, a := range append(c.opts.Adopted, c.adoptedNow()...) {
		if strings.EqualFold(a.Name, ks) {
			return invalid("Keyspace %s is a CQL keyspace thriftd serves in place (-cassandra-adopt); its schema can only be changed with CQL, which thriftd follows", a.Name)
		}
	}
	return nil
}
