package config

import (
	"fmt"
	"strings"
)

// systemKeyspace is the built-in keyspace a file may not define.
const systemKeyspace = "system"

var keyspaceChildren = map[string]bool{
	"ColumnFamily": true, "ReplicaPlacementStrategy": true,
	"ReplicationFactor": true, "EndPointSnitch": true,
}

// columnFamilyAttrs are the ColumnFamily attributes read: 0.6.13's, and
// Comment, which 0.6 documented but did not read and thriftd does.
var columnFamilyAttrs = map[string]bool{
	"Name": true, "ColumnType": true, "CompareWith": true,
	"CompareSubcolumnsWith": true, "KeysCached": true, "KeysCachedFraction": true,
	"RowsCached": true, "RowCacheSavePeriodInSeconds": true,
	"KeyCacheSavePeriodInSeconds": true, "Comment": true, "ColumnSort": true,
}

// readKeyspaces reads every /Storage/Keyspaces/Keyspace, across every
// <Keyspaces> element, in document order.
func (p *parser) readKeyspaces() {
	if p.err != nil {
		return
	}
	seen := map[string]bool{}
	for _, list := range p.root.children() {
		if list.name != "Keyspaces" {
			continue
		}
		pos := 0
		for _, e := range list.children() {
			if e.name != "Keyspace" {
				p.warn("/Storage/Keyspaces/%s is not read; ignored", e.name)
				continue
			}
			pos++
			ks, ok := p.readKeyspace(e, pos, seen)
			if !ok {
				return
			}
			p.c.Keyspaces = append(p.c.Keyspaces, ks)
		}
	}
	if len(p.c.Keyspaces) == 0 && !p.opts.AllowNoKeyspaces {
		p.fail("/Storage/Keyspaces", "No keyspaces configured")
	}
}

func (p *parser) readKeyspace(e *element, pos int, seen map[string]bool) (Keyspace, bool) {
	name, ok := e.attr("Name")
	if !ok {
		p.fail(fmt.Sprintf("/Storage/Keyspaces/Keyspace[%d]", pos), "Table name attribute is required")
		return Keyspace{}, false
	}
	path := fmt.Sprintf("/Storage/Keyspaces/Keyspace[@Name='%s']", name)
	if strings.EqualFold(name, systemKeyspace) {
		p.fail(path, "'system' is a reserved table name for Cassandra internals")
		return Keyspace{}, false
	}
	if seen[name] {
		p.fail(path, "Keyspace %s is defined more than once", name)
		return Keyspace{}, false
	}
	seen[name] = true
	for _, a := range e.attrs {
		if n := qualified(a.Name); n != "Name" {
			p.warn("%s/@%s is not read; ignored", path, n)
		}
	}
	for _, c := range e.children() {
		if !keyspaceChildren[c.name] {
			p.warn("%s/%s is not read; ignored", path, c.name)
		}
	}

	ks := Keyspace{Name: name}
	if ks.ReplicaPlacementStrategy, ok = childValue(e, "ReplicaPlacementStrategy"); !ok {
		p.fail(path+"/ReplicaPlacementStrategy", "Missing replicaplacementstrategy directive for %s", name)
		return Keyspace{}, false
	}
	rf, ok := childValue(e, "ReplicationFactor")
	if !ok {
		// "directory" [sic] is 0.6's word.
		p.fail(path+"/ReplicationFactor", "Missing replicationfactor directory for keyspace %s", name)
		return Keyspace{}, false
	}
	n, err := parseJavaInt(rf, 32)
	if err != nil {
		p.fail(path+"/ReplicationFactor", "%s", err)
		return Keyspace{}, false
	}
	ks.ReplicationFactor = int(n)
	if ks.EndPointSnitch, ok = childValue(e, "EndPointSnitch"); !ok {
		p.fail(path+"/EndPointSnitch", "Missing endpointsnitch directive for keyspace %s", name)
		return Keyspace{}, false
	}

	cfSeen := map[string]bool{}
	cfPos := 0
	for _, c := range e.children() {
		if c.name != "ColumnFamily" {
			continue
		}
		cfPos++
		cf, ok := p.readColumnFamily(c, path, cfPos, cfSeen)
		if !ok {
			return Keyspace{}, false
		}
		ks.ColumnFamilies = append(ks.ColumnFamilies, cf)
	}
	return ks, true
}

func (p *parser) readColumnFamily(e *element, ksPath string, pos int, seen map[string]bool) (ColumnFamily, bool) {
	name, ok := e.attr("Name")
	if !ok {
		p.fail(fmt.Sprintf("%s/ColumnFamily[%d]", ksPath, pos), "ColumnFamily name attribute is required")
		return ColumnFamily{}, false
	}
	path := fmt.Sprintf("%s/ColumnFamily[@Name='%s']", ksPath, name)
	if strings.Contains(name, "-") {
		p.fail(path, "ColumnFamily names cannot contain hyphens")
		return ColumnFamily{}, false
	}
	if seen[name] {
		p.fail(path, "ColumnFamily %s is defined more than once in this keyspace", name)
		return ColumnFamily{}, false
	}
	seen[name] = true
	for _, a := range e.attrs {
		if n := qualified(a.Name); !columnFamilyAttrs[n] {
			p.warn("%s/@%s is not read; ignored", path, n)
		}
	}
	for _, c := range e.children() {
		if c.name != "Comment" {
			p.warn("%s/%s is not read; ignored", path, c.name)
		}
	}

	cf := ColumnFamily{
		Name:        name,
		ColumnType:  "Standard",
		CompareWith: DefaultComparator,
		KeysCached:  DefaultKeysCached,
		RowsCached:  DefaultRowsCached,
	}
	if t, ok := e.attr("ColumnType"); ok {
		if t != "Standard" && t != "Super" {
			p.fail(path+"/@ColumnType", "ColumnFamily %s has invalid type %s", name, t)
			return ColumnFamily{}, false
		}
		cf.ColumnType = t
	}
	if _, ok := e.attr("ColumnSort"); ok {
		p.fail(path+"/@ColumnSort", "ColumnSort is no longer an accepted attribute.  Use CompareWith instead.")
		return ColumnFamily{}, false
	}
	if v, ok := e.attr("CompareWith"); ok {
		cf.CompareWith = v
	}
	sub, hasSub := e.attr("CompareSubcolumnsWith")
	switch {
	case cf.ColumnType == "Super" && hasSub:
		cf.CompareSubcolumnsWith = sub
	case cf.ColumnType == "Super":
		cf.CompareSubcolumnsWith = DefaultComparator
	case hasSub:
		p.fail(path+"/@CompareSubcolumnsWith", "CompareSubcolumnsWith is only a valid attribute on super columnfamilies (not regular columnfamily %s)", name)
		return ColumnFamily{}, false
	}

	if v, ok := e.attr("KeysCachedFraction"); ok {
		if _, err := parseJavaDouble(v); err != nil {
			p.fail(path+"/@KeysCachedFraction", "%s", err)
			return ColumnFamily{}, false
		}
		p.warn("%s/@KeysCachedFraction is deprecated: use KeysCached instead.", path)
		cf.KeysCached = v
	}
	for _, a := range []struct {
		name string
		dst  *string
	}{{"KeysCached", &cf.KeysCached}, {"RowsCached", &cf.RowsCached}} {
		v, ok := e.attr(a.name)
		if !ok {
			continue
		}
		if err := checkCacheSize(v); err != nil {
			p.fail(path+"/@"+a.name, "%s", err)
			return ColumnFamily{}, false
		}
		*a.dst = v
	}

	// The <Comment> element is 0.6's; the attribute is what 0.6's sample
	// file documented, so thriftd reads it too (spec 16.5). An empty
	// element counts as absent, as every 0.6 element does.
	if v, ok := childValue(e, "Comment"); ok {
		cf.Comment, cf.HasComment = v, true
	} else if v, ok := e.attr("Comment"); ok {
		cf.Comment, cf.HasComment = v, true
	}

	for _, a := range []struct {
		name string
		dst  *int
	}{{"RowCacheSavePeriodInSeconds", &cf.RowCacheSavePeriodInSeconds}, {"KeyCacheSavePeriodInSeconds", &cf.KeyCacheSavePeriodInSeconds}} {
		v, ok := e.attr(a.name)
		if !ok {
			continue
		}
		n, err := parseJavaInt(v, 32)
		if err != nil {
			p.fail(path+"/@"+a.name, "%s", err)
			return ColumnFamily{}, false
		}
		*a.dst = int(n)
	}
	return cf, true
}

// checkCacheSize accepts what 0.6's FBUtilities.parseDoubleOrPercent did:
// a number (an absolute count, or a fraction when below 1), or a number
// followed by '%'.
func checkCacheSize(v string) error {
	_, err := parseJavaDouble(strings.TrimSuffix(v, "%"))
	return err
}
