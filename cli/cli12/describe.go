package cli12

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

func (s *Session) describeStmt(p *parser) error {
	if p.accept("cluster") {
		if err := p.end(); err != nil {
			return err
		}
		return s.describeCluster()
	}
	var entity string
	if t := p.peek(); t.kind != tEOF && !p.is(";") {
		var err error
		if entity, err = p.entity(); err != nil {
			return err
		}
	}
	if err := p.end(); err != nil {
		return err
	}
	s.printCQL3Warning("describe")
	if s.keyspace == "" && entity == "" {
		fmt.Fprintln(s.out, "Authenticate to a Keyspace, before using `describe` or `describe <column_family>`")
		return nil
	}
	// As cassandra-cli 1.2: a column family is described as the server
	// defines it with the session's assumptions (its comparator,
	// subcomparator and validator), a keyspace as the server defines it.
	var current *cassandra19.KsDef
	if s.keyspace != "" {
		delete(s.ksCache, s.keyspace)
		var err error
		if current, err = s.ksDef(s.keyspace); err != nil {
			return err
		}
	}
	if entity == "" {
		ks, err := s.client.DescribeKeyspace(s.ctx, s.keyspace)
		if err != nil {
			return why(err)
		}
		s.noJMX()
		return s.describeKeyspace(ks)
	}
	kss, err := s.client.DescribeKeyspaces(s.ctx)
	if err != nil {
		return why(err)
	}
	for _, ks := range kss {
		if ks.Name == entity {
			s.noJMX()
			return s.describeKeyspace(ks)
		}
	}
	if current == nil {
		return fmt.Errorf("Keyspace with name '%s' wasn't found, to lookup ColumnFamily with that name, please, authorize to one of the keyspaces first.", entity)
	}
	for _, cf := range current.CfDefs {
		if cf.Name == entity {
			s.noJMX()
			return s.describeCF(cf)
		}
	}
	fmt.Fprintf(s.out, "Sorry, no Keyspace nor (non-CQL3) ColumnFamily was found with name: %s (if this is a CQL3 table, you should use cqlsh instead)\n", entity)
	return nil
}

func (s *Session) describeCluster() error {
	fmt.Fprintln(s.out, "Cluster Information:")
	name, err := s.client.DescribeClusterName(s.ctx)
	if err == nil {
		fmt.Fprintf(s.out, "   Name: %s\n", name)
		var snitch, part string
		if snitch, err = s.client.DescribeSnitch(s.ctx); err == nil {
			fmt.Fprintf(s.out, "   Snitch: %s\n", snitch)
			if part, err = s.client.DescribePartitioner(s.ctx); err == nil {
				fmt.Fprintf(s.out, "   Partitioner: %s\n", part)
				fmt.Fprintln(s.out, "   Schema versions: ")
				var versions map[string][]string
				if versions, err = s.client.DescribeSchemaVersions(s.ctx); err == nil {
					for v, hosts := range versions {
						fmt.Fprintf(s.out, "\t%s: [%s]\n\n", v, strings.Join(hosts, ", "))
					}
				}
			}
		}
	}
	if err != nil {
		fmt.Fprintf(s.err, "Error retrieving data: %v\n", why(err))
	}
	return nil
}

// javaMap is AbstractMap.toString: {k=v, k=v}.
func javaMap(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (s *Session) describeKeyspace(ks *cassandra19.KsDef) error {
	fmt.Fprintf(s.out, "Keyspace: %s:\n", ks.Name)
	fmt.Fprintf(s.out, "  Replication Strategy: %s\n", ks.StrategyClass)
	fmt.Fprintf(s.out, "  Durable Writes: %t\n", ks.DurableWrites)
	var opts []string
	for _, k := range sortedKeys(ks.StrategyOptions) {
		opts = append(opts, k+":"+ks.StrategyOptions[k])
	}
	fmt.Fprintf(s.out, "    Options: [%s]\n", strings.Join(opts, ", "))
	fmt.Fprintln(s.out, "  Column Families:")
	cfs := append([]*cassandra19.CfDef(nil), ks.CfDefs...)
	sort.Slice(cfs, func(i, j int) bool { return cfs[i].Name < cfs[j].Name })
	for _, cf := range cfs {
		if err := s.describeCF(cf); err != nil {
			return err
		}
	}
	return nil
}

// describeCF is describeColumnFamily. A column name the comparator cannot
// read (a name of an assumed UTF8Type comparator that is not UTF-8) fails
// the statement where it is met, as 1.2's getString throws.
func (s *Session) describeCF(cf *cassandra19.CfDef) error {
	w := s.out
	super := cf.ColumnType == "Super"
	suffix := ""
	if super {
		suffix = " (Super)"
	}
	fmt.Fprintf(w, "    ColumnFamily: %s%s\n", cf.Name, suffix)
	if c := str(cf.Comment); c != "" {
		fmt.Fprintf(w, "    \"%s\"\n", c)
	}
	if cf.KeyValidationClass != nil {
		fmt.Fprintf(w, "      Key Validation Class: %s\n", *cf.KeyValidationClass)
	}
	if cf.DefaultValidationClass != nil {
		fmt.Fprintf(w, "      Default column value validator: %s\n", *cf.DefaultValidationClass)
	}
	sorted := cf.ComparatorType
	if super {
		sorted += "/" + str(cf.SubcomparatorType)
	}
	fmt.Fprintf(w, "      Cells sorted by: %s\n", sorted)
	fmt.Fprintf(w, "      GC grace seconds: %s\n", i32(cf.GcGraceSeconds))
	fmt.Fprintf(w, "      Compaction min/max thresholds: %s/%s\n", i32(cf.MinCompactionThreshold), i32(cf.MaxCompactionThreshold))
	fmt.Fprintf(w, "      Read repair chance: %s\n", f64(cf.ReadRepairChance))
	fmt.Fprintf(w, "      DC Local Read repair chance: %s\n", javaDouble(cf.DclocalReadRepairChance))
	fmt.Fprintf(w, "      Populate IO Cache on flush: %t\n", cf.PopulateIoCacheOnFlush != nil && *cf.PopulateIoCacheOnFlush)
	fmt.Fprintf(w, "      Replicate on write: %s\n", boolStr(cf.ReplicateOnWrite))
	fmt.Fprintf(w, "      Caching: %s\n", cf.Caching)
	bf := "default"
	if cf.BloomFilterFpChance != nil {
		bf = javaDouble(*cf.BloomFilterFpChance)
	}
	fmt.Fprintf(w, "      Bloom Filter FP chance: %s\n", bf)
	if len(cf.ColumnMetadata) > 0 {
		cmp := cf.ComparatorType
		if super {
			cmp = str(cf.SubcomparatorType)
		}
		class, _ := formatType(cmp)
		fmt.Fprintln(w, "      Column Metadata:")
		for _, cd := range cf.ColumnMetadata {
			if short(class) == "UTF8Type" && !validUTF8(cd.Name) {
				return fmt.Errorf("invalid UTF8 bytes %s", hex.EncodeToString(cd.Name))
			}
			name := getString(class, cd.Name)
			if short(class) == "BytesType" && validUTF8(cd.Name) {
				name = string(cd.Name) + " (" + name + ")"
			}
			fmt.Fprintf(w, "        Column Name: %s\n", name)
			fmt.Fprintf(w, "          Validation Class: %s\n", cd.ValidationClass)
			if cd.IndexName != nil {
				fmt.Fprintf(w, "          Index Name: %s\n", *cd.IndexName)
			}
			if cd.IndexType != nil {
				fmt.Fprintf(w, "          Index Type: %s\n", cd.IndexType.String())
			}
			if cd.IndexOptions != nil {
				fmt.Fprintf(w, "          Index Options: %s\n", javaMap(cd.IndexOptions))
			}
		}
	}
	fmt.Fprintf(w, "      Compaction Strategy: %s\n", str(cf.CompactionStrategy))
	if len(cf.CompactionStrategyOptions) > 0 {
		fmt.Fprintln(w, "      Compaction Strategy Options:")
		for _, k := range sortedKeys(cf.CompactionStrategyOptions) {
			fmt.Fprintf(w, "        %s: %s\n", k, cf.CompactionStrategyOptions[k])
		}
	}
	if len(cf.CompressionOptions) > 0 {
		fmt.Fprintln(w, "      Compression Options:")
		for _, k := range sortedKeys(cf.CompressionOptions) {
			fmt.Fprintf(w, "        %s: %s\n", k, cf.CompressionOptions[k])
		}
	}
	return nil
}

func i32(p *int32) string {
	if p == nil {
		return "0"
	}
	return strconv.Itoa(int(*p))
}

func f64(p *float64) string {
	if p == nil {
		return "0.0"
	}
	return javaDouble(*p)
}

func boolStr(p *bool) string {
	return strconv.FormatBool(p != nil && *p)
}
