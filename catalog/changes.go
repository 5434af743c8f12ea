package catalog

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// The handler validated each change against the schema it read; the
// catalog checks again against the current one under its lock, so that of
// two clients racing to make the same change, the second is refused as the
// real server refuses it.

// InvalidError is a schema change the catalog refuses as the client's
// fault: the change names what does not exist, or already exists, or may
// not be changed. Why is the real server's wording, which a service
// sends to its client unchanged (the 19.x API as
// InvalidRequestException.why).
type InvalidError struct{ Why string }

func (e *InvalidError) Error() string { return e.Why }

func invalid(format string, args ...any) error {
	return &InvalidError{Why: fmt.Sprintf(format, args...)}
}

// change builds the next schema from the current one with edit, records
// it and serves it, and returns its version.
func (c *Catalog) change(ctx context.Context, edit func(next *schema.Schema) error) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.cur.Load()
	next := cloneSchema(cur.schema)
	if err := edit(next); err != nil {
		return "", err
	}
	next.Version = newVersion()
	enc, err := schema.Marshal(schema.Record{Schema: next, FromFile: cur.fromFile})
	if err != nil {
		return "", err
	}
	if err := c.store.ChangeSchema(ctx, next, enc); err != nil {
		return "", err
	}
	c.cur.Store(&state{schema: next, fromFile: cur.fromFile, encoded: enc})
	return next.Version, nil
}

// normalize resolves every type of cf again by name through the
// catalog's resolver (resolver12 where cf.Types12 is set), so a family
// holds the same types before and after a restart, and gives it an id.
func (c *Catalog) normalize(s *schema.Schema, cf *schema.ColumnFamily) (*schema.ColumnFamily, error) {
	resolve := resolver(c.opts)
	if cf.Types12 {
		resolve = resolver12(c.opts)
	}
	out := *cf
	again := func(t marshal.Comparator) (marshal.Comparator, error) {
		if t == nil {
			return nil, nil
		}
		r, err := resolve(t.Name())
		if err != nil {
			return nil, invalid("%s", err.Error())
		}
		return r, nil
	}
	var err error
	if out.Comparator, err = again(cf.Comparator); err != nil {
		return nil, err
	}
	if out.SubComparator, err = again(cf.SubComparator); err != nil {
		return nil, err
	}
	if out.KeyValidator, err = again(cf.KeyValidator); err != nil {
		return nil, err
	}
	if out.DefaultValidator, err = again(cf.DefaultValidator); err != nil {
		return nil, err
	}
	out.Columns = make([]schema.ColumnDef, len(cf.Columns))
	for i, col := range cf.Columns {
		out.Columns[i] = col
		if out.Columns[i].Validator, err = again(col.Validator); err != nil {
			return nil, err
		}
	}
	if out.ID == 0 {
		return withID(s, &out), nil
	}
	return &out, nil
}

// created is cf as the 19.x API creates it: with 1.2's types (Types12).
func created(cf *schema.ColumnFamily) *schema.ColumnFamily {
	c := *cf
	c.Types12 = true
	return &c
}

// AddKeyspace creates keyspace ks with its column families (what the
// 19.x API's system_add_keyspace asks).
func (c *Catalog) AddKeyspace(ctx context.Context, ks *schema.Keyspace) (string, error) {
	if err := c.refuseAdopted(ks.Name); err != nil {
		return "", err
	}
	return c.change(ctx, func(next *schema.Schema) error {
		for _, name := range next.KeyspaceNames() {
			if strings.EqualFold(name, ks.Name) {
				return invalid("Keyspace names must be case-insensitively unique (\"%s\" conflicts with \"%s\")", ks.Name, name)
			}
		}
		k := *ks
		k.ColumnFamilies = map[string]*schema.ColumnFamily{}
		k.ReplicationFactor = replicationFactor(ks)
		next.Keyspaces[k.Name] = &k
		for _, n := range sortedFamilies(ks) {
			cf, err := c.normalize(next, created(ks.ColumnFamilies[n]))
			if err != nil {
				return err
			}
			k.ColumnFamilies[n] = cf
		}
		c.log.Info("keyspace created", "keyspace", ks.Name)
		return nil
	})
}

// replicationFactor is the 0.6 service's view of a 19.x keyspace: its
// replication_factor option, else 1.
func replicationFactor(ks *schema.Keyspace) int {
	if n, err := strconv.Atoi(ks.Options.StrategyOptions["replication_factor"]); err == nil && n > 0 {
		return n
	}
	if ks.ReplicationFactor > 0 {
		return ks.ReplicationFactor
	}
	return 1
}

// UpdateKeyspace changes keyspace ks (system_update_keyspace): its
// replication settings change, its column families stay.
func (c *Catalog) UpdateKeyspace(ctx context.Context, ks *schema.Keyspace) (string, error) {
	if err := c.refuseAdopted(ks.Name); err != nil {
		return "", err
	}
	return c.change(ctx, func(next *schema.Schema) error {
		old := next.Keyspaces[ks.Name]
		if old == nil || old.System {
			return invalid("Keyspace %s does not exist", ks.Name)
		}
		k := *old
		k.Options = ks.Options
		k.ReplicationFactor = replicationFactor(&k)
		next.Keyspaces[ks.Name] = &k
		c.log.Info("keyspace updated", "keyspace", ks.Name)
		return nil
	})
}

// DropKeyspace drops a keyspace (system_drop_keyspace).
func (c *Catalog) DropKeyspace(ctx context.Context, name string) (string, error) {
	if err := c.refuseAdopted(name); err != nil {
		return "", err
	}
	return c.change(ctx, func(next *schema.Schema) error {
		ks := next.Keyspaces[name]
		if ks == nil || ks.System {
			return invalid("Cannot drop non existing keyspace '%s'.", name)
		}
		delete(next.Keyspaces, name)
		c.log.Info("keyspace dropped", "keyspace", name)
		return nil
	})
}

// AddColumnFamily creates a column family (system_add_column_family).
func (c *Catalog) AddColumnFamily(ctx context.Context, cf *schema.ColumnFamily) (string, error) {
	if err := c.refuseAdopted(cf.Keyspace); err != nil {
		return "", err
	}
	return c.change(ctx, func(next *schema.Schema) error {
		ks := next.Keyspaces[cf.Keyspace]
		if ks == nil || ks.System {
			return invalid("Cannot add column family '%s' to non existing keyspace '%s'.", cf.Name, cf.Keyspace)
		}
		if ks.ColumnFamilies[cf.Name] != nil {
			return invalid("Cannot add already existing column family \"%s\" to keyspace \"%s\"", cf.Name, cf.Keyspace)
		}
		n, err := c.normalize(next, created(cf))
		if err != nil {
			return err
		}
		ks.ColumnFamilies[cf.Name] = n
		c.log.Info("column family created", "keyspace", cf.Keyspace, "column_family", cf.Name, "id", n.ID)
		return nil
	})
}

// UpdateColumnFamily changes a column family
// (system_update_column_family). The family keeps its id and its data;
// its type and comparators cannot change (the handler refuses that).
func (c *Catalog) UpdateColumnFamily(ctx context.Context, cf *schema.ColumnFamily) (string, error) {
	if err := c.refuseAdopted(cf.Keyspace); err != nil {
		return "", err
	}
	return c.change(ctx, func(next *schema.Schema) error {
		ks := next.Keyspaces[cf.Keyspace]
		var old *schema.ColumnFamily
		if ks != nil {
			old = ks.ColumnFamilies[cf.Name]
		}
		if old == nil || ks.System {
			return invalid("Could not find column family definition to modify.")
		}
		if cf.Super != old.Super || name(cf.Comparator) != name(old.Comparator) || name(cf.SubComparator) != name(old.SubComparator) {
			return invalid("comparators do not match or are not compatible.")
		}
		u := *cf
		u.ID = old.ID
		// Its stored names stay in the order they were written in.
		u.Types12 = old.Types12
		n, err := c.normalize(next, &u)
		if err != nil {
			return err
		}
		ks.ColumnFamilies[cf.Name] = n
		c.log.Info("column family updated", "keyspace", cf.Keyspace, "column_family", cf.Name)
		return nil
	})
}

// DropColumnFamily drops a column family (system_drop_column_family).
func (c *Catalog) DropColumnFamily(ctx context.Context, keyspace, cfName string) (string, error) {
	if err := c.refuseAdopted(keyspace); err != nil {
		return "", err
	}
	return c.change(ctx, func(next *schema.Schema) error {
		ks := next.Keyspaces[keyspace]
		if ks == nil || ks.System || ks.ColumnFamilies[cfName] == nil {
			return invalid("Cannot drop non existing column family '%s' in keyspace '%s'.", cfName, keyspace)
		}
		delete(ks.ColumnFamilies, cfName)
		c.log.Info("column family dropped", "keyspace", keyspace, "column_family", cfName)
		return nil
	})
}
