package cli12

import (
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// help.yaml is cassandra-cli 1.2.19's help text (CliHelp.yaml), so that
// help prints what the real tool prints.
//
//go:embed help.yaml
var helpYAML []byte

type helpDoc struct {
	Banner   string `yaml:"banner"`
	Help     string `yaml:"help"`
	Commands []struct {
		Name string `yaml:"name"`
		Help string `yaml:"help"`
	} `yaml:"commands"`
}

func loadHelp() (*helpDoc, error) {
	var h helpDoc
	if err := yaml.Unmarshal(helpYAML, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// helpTopics maps the words after help to the help entry's node name.
var helpTopics = map[string]string{
	"help": "NODE_HELP", "connect": "NODE_CONNECT", "use": "NODE_USE_TABLE", "describe": "NODE_DESCRIBE",
	"describe cluster": "NODE_DESCRIBE_CLUSTER", "exit": "NODE_EXIT", "quit": "NODE_EXIT",
	"show cluster name": "NODE_SHOW_CLUSTER_NAME", "show api version": "NODE_SHOW_VERSION",
	"show keyspaces": "NODE_SHOW_KEYSPACES", "show schema": "NODE_SHOW_SCHEMA",
	"create keyspace": "NODE_ADD_KEYSPACE", "update keyspace": "NODE_UPDATE_KEYSPACE",
	"create column family": "NODE_ADD_COLUMN_FAMILY", "update column family": "NODE_UPDATE_COLUMN_FAMILY",
	"drop keyspace": "NODE_DEL_KEYSPACE", "drop column family": "NODE_DEL_COLUMN_FAMILY",
	"drop index": "NODE_DROP_INDEX", "get": "NODE_THRIFT_GET", "set": "NODE_THRIFT_SET",
	"incr": "NODE_THRIFT_INCR", "decr": "NODE_THRIFT_DECR", "del": "NODE_THRIFT_DEL",
	"count": "NODE_THRIFT_COUNT", "list": "NODE_LIST", "truncate": "NODE_TRUNCATE",
	"assume": "NODE_ASSUME", "consistencylevel": "NODE_CONSISTENCY_LEVEL",
}

func (s *Session) help(p *parser) error {
	var words []string
	first := p.peek()
	for !p.is(";") && p.peek().kind != tEOF {
		words = append(words, strings.ToLower(p.next().text))
	}
	h, err := loadHelp()
	if err != nil {
		return err
	}
	if len(words) == 0 {
		fmt.Fprintln(s.out, h.Help)
		return nil
	}
	node, ok := helpTopics[strings.Join(words, " ")]
	if !ok {
		return fmt.Errorf("Syntax error at position %d: no viable alternative at input '%s'", first.pos, first.text)
	}
	for _, c := range h.Commands {
		if c.Name == node {
			fmt.Fprintln(s.out, c.Help)
			return nil
		}
	}
	fmt.Fprintln(s.out, h.Help)
	return nil
}

func (s *Session) showStmt(p *parser) error {
	switch {
	case p.accept("cluster"):
		if err := p.expect("name"); err != nil {
			return err
		}
		if err := p.end(); err != nil {
			return err
		}
		name, err := s.client.DescribeClusterName(s.ctx)
		if err != nil {
			return why(err)
		}
		fmt.Fprintln(s.out, name)
	case p.accept("api"):
		if err := p.expect("version"); err != nil {
			return err
		}
		if err := p.end(); err != nil {
			return err
		}
		v, err := s.client.DescribeVersion(s.ctx)
		if err != nil {
			return why(err)
		}
		fmt.Fprintln(s.out, v)
	case p.accept("keyspaces"):
		if err := p.end(); err != nil {
			return err
		}
		s.printCQL3Warning("show keyspaces")
		kss, err := s.client.DescribeKeyspaces(s.ctx)
		if err != nil {
			return why(err)
		}
		sort.Slice(kss, func(i, j int) bool { return kss[i].Name < kss[j].Name })
		for _, ks := range kss {
			if err := s.describeKeyspace(ks); err != nil {
				return err
			}
		}
	case p.accept("schema"):
		var name string
		if t := p.peek(); t.kind != tEOF && !p.is(";") {
			var err error
			if name, err = p.entity(); err != nil {
				return err
			}
		}
		if err := p.end(); err != nil {
			return err
		}
		s.printCQL3Warning("show schema")
		kss, err := s.client.DescribeKeyspaces(s.ctx)
		if err != nil {
			return why(err)
		}
		sort.Slice(kss, func(i, j int) bool { return kss[i].Name < kss[j].Name })
		if name != "" {
			if name, err = s.ksName(name); err != nil {
				return err
			}
		} else {
			name = s.keyspace
		}
		for _, ks := range kss {
			if name == "" || ks.Name == name {
				s.showKeyspace(ks)
			}
		}
	default:
		return p.errAt(p.peek(), "one of cluster name, api version, keyspaces, schema")
	}
	return nil
}

func trimPkg(class, pkg string) string {
	if strings.HasPrefix(class, pkg) {
		return class[len(pkg)+1:]
	}
	return class
}

func (s *Session) showKeyspace(ks *cassandra19.KsDef) {
	var b strings.Builder
	attr := func(first bool, name, value string) {
		b.WriteString("\n  ")
		if first {
			b.WriteString("with ")
		} else {
			b.WriteString("and ")
		}
		b.WriteString(name + " = " + value)
	}
	q := func(v string) string { return "'" + escape(v) + "'" }
	b.WriteString("create keyspace " + maybeEscapeName(ks.Name))
	attr(true, "placement_strategy", q(trimPkg(ks.StrategyClass, "org.apache.cassandra.locator")))
	if len(ks.StrategyOptions) > 0 {
		var opts []string
		for _, k := range sortedKeys(ks.StrategyOptions) {
			opts = append(opts, escape(k)+" : "+escape(ks.StrategyOptions[k]))
		}
		attr(false, "strategy_options", "{"+strings.Join(opts, ", ")+"}")
	}
	attr(false, "durable_writes", strconv.FormatBool(ks.DurableWrites))
	b.WriteString(";\n\nuse " + maybeEscapeName(ks.Name) + ";\n\n")
	cfs := append([]*cassandra19.CfDef(nil), ks.CfDefs...)
	sort.Slice(cfs, func(i, j int) bool { return cfs[i].Name < cfs[j].Name })
	for _, cf := range cfs {
		b.WriteString("create column family " + maybeEscapeName(cf.Name))
		attr(true, "column_type", q(cf.ColumnType))
		const m = "org.apache.cassandra.db.marshal"
		attr(false, "comparator", q(trimPkg(cf.ComparatorType, m)))
		if cf.ColumnType == "Super" {
			attr(false, "subcomparator", q(trimPkg(str(cf.SubcomparatorType), m)))
		}
		if d := str(cf.DefaultValidationClass); d != "" {
			attr(false, "default_validation_class", q(trimPkg(d, m)))
		}
		attr(false, "key_validation_class", q(trimPkg(str(cf.KeyValidationClass), m)))
		attr(false, "read_repair_chance", f64(cf.ReadRepairChance))
		attr(false, "dclocal_read_repair_chance", javaDouble(cf.DclocalReadRepairChance))
		attr(false, "populate_io_cache_on_flush", boolStr(cf.PopulateIoCacheOnFlush))
		attr(false, "gc_grace", i32(cf.GcGraceSeconds))
		attr(false, "min_compaction_threshold", i32(cf.MinCompactionThreshold))
		attr(false, "max_compaction_threshold", i32(cf.MaxCompactionThreshold))
		attr(false, "replicate_on_write", boolStr(cf.ReplicateOnWrite))
		attr(false, "compaction_strategy", q(str(cf.CompactionStrategy)))
		attr(false, "caching", q(cf.Caching))
		if cf.BloomFilterFpChance != nil {
			attr(false, "bloom_filter_fp_chance", javaDouble(*cf.BloomFilterFpChance))
		}
		if len(cf.CompactionStrategyOptions) > 0 {
			var opts []string
			for _, k := range sortedKeys(cf.CompactionStrategyOptions) {
				opts = append(opts, "'"+k+"' : '"+cf.CompactionStrategyOptions[k]+"'")
			}
			attr(false, "compaction_strategy_options", "{"+strings.Join(opts, ", ")+"}")
		}
		if c := str(cf.Comment); c != "" {
			attr(false, "comment", q(c))
		}
		if len(cf.ColumnMetadata) > 0 {
			cmp := cf.ComparatorType
			if cf.ColumnType == "Super" {
				cmp = str(cf.SubcomparatorType)
			}
			class, _ := formatType(cmp)
			b.WriteString("\n  and column_metadata = [")
			for i, cd := range cf.ColumnMetadata {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString("\n    {column_name : '" + escape(getString(class, cd.Name)) + "',\n")
				b.WriteString("    validation_class : " + escape(trimPkg(cd.ValidationClass, m)))
				if cd.IndexName != nil {
					b.WriteString(",\n    index_name : '" + escape(*cd.IndexName) + "',\n")
					idx := 0
					if cd.IndexType != nil {
						idx = int(*cd.IndexType)
					}
					b.WriteString("    index_type : " + strconv.Itoa(idx))
					if len(cd.IndexOptions) > 0 {
						b.WriteString(",\n    index_options : {\n")
						for j, k := range sortedKeys(cd.IndexOptions) {
							b.WriteString("      '" + escape(k) + "' : '" + escape(cd.IndexOptions[k]) + "'")
							if j < len(cd.IndexOptions)-1 {
								b.WriteString(",\n")
							}
						}
						b.WriteString("}")
					}
				}
				b.WriteString("}")
			}
			b.WriteString("]")
		}
		if len(cf.CompressionOptions) > 0 {
			var opts []string
			for _, k := range sortedKeys(cf.CompressionOptions) {
				opts = append(opts, "'"+k+"' : '"+cf.CompressionOptions[k]+"'")
			}
			attr(false, "compression_options", "{"+strings.Join(opts, ", ")+"}")
		}
		b.WriteString(";\n\n")
	}
	b.WriteString("\n\n")
	fmt.Fprint(s.out, b.String())
}

func (s *Session) createStmt(p *parser) error {
	switch {
	case p.accept("keyspace"):
		name, err := p.entity()
		if err != nil {
			return err
		}
		attrs, err := p.attrs()
		if err != nil {
			return err
		}
		if err := p.end(); err != nil {
			return err
		}
		ks := &cassandra19.KsDef{Name: name, StrategyClass: "org.apache.cassandra.locator.NetworkTopologyStrategy", CfDefs: []*cassandra19.CfDef{}, DurableWrites: true}
		if err := ksAttrs(ks, attrs); err != nil {
			return err
		}
		v, err := s.client.SystemAddKeyspace(s.ctx, ks)
		if err != nil {
			return why(err)
		}
		fmt.Fprintln(s.out, v)
		delete(s.ksCache, name)
		return nil
	case p.accept("column"):
		if err := p.expect("family"); err != nil {
			return err
		}
		name, err := p.entity()
		if err != nil {
			return err
		}
		attrs, err := p.attrs()
		if err != nil {
			return err
		}
		if err := p.end(); err != nil {
			return err
		}
		if !s.hasKeyspace() {
			return nil
		}
		cf := cassandra19.NewCfDef()
		cf.Keyspace, cf.Name = s.keyspace, name
		if err := s.cfAttrs(cf, attrs); err != nil {
			return err
		}
		v, err := s.client.SystemAddColumnFamily(s.ctx, cf)
		if err != nil {
			return why(err)
		}
		fmt.Fprintln(s.out, v)
		delete(s.ksCache, s.keyspace)
		return nil
	}
	return p.errAt(p.peek(), "KEYSPACE or COLUMN FAMILY")
}

func (s *Session) updateStmt(p *parser) error {
	switch {
	case p.accept("keyspace"):
		name, err := p.entity()
		if err != nil {
			return err
		}
		attrs, err := p.attrs()
		if err != nil {
			return err
		}
		if err := p.end(); err != nil {
			return err
		}
		if name, err = s.ksName(name); err != nil {
			return err
		}
		cur, err := s.client.DescribeKeyspace(s.ctx, name)
		if err != nil {
			return why(err)
		}
		ks := *cur
		ks.CfDefs = []*cassandra19.CfDef{}
		if err := ksAttrs(&ks, attrs); err != nil {
			return err
		}
		v, err := s.client.SystemUpdateKeyspace(s.ctx, &ks)
		if err != nil {
			return why(err)
		}
		fmt.Fprintln(s.out, v)
		delete(s.ksCache, name)
		return nil
	case p.accept("column"):
		if err := p.expect("family"); err != nil {
			return err
		}
		name, err := p.entity()
		if err != nil {
			return err
		}
		attrs, err := p.attrs()
		if err != nil {
			return err
		}
		if err := p.end(); err != nil {
			return err
		}
		if !s.hasKeyspace() {
			return nil
		}
		if name, err = s.cfName(name); err != nil {
			return err
		}
		cur, err := s.cfDef(name)
		if err != nil {
			return err
		}
		cf := *cur
		if err := s.cfAttrs(&cf, attrs); err != nil {
			return err
		}
		v, err := s.client.SystemUpdateColumnFamily(s.ctx, &cf)
		if err != nil {
			return why(err)
		}
		fmt.Fprintln(s.out, v)
		delete(s.ksCache, s.keyspace)
		return nil
	}
	return p.errAt(p.peek(), "KEYSPACE or COLUMN FAMILY")
}

func (s *Session) dropStmt(p *parser) error {
	switch {
	case p.accept("keyspace"):
		name, err := p.entity()
		if err != nil {
			return err
		}
		if err := p.end(); err != nil {
			return err
		}
		if name, err = s.ksName(name); err != nil {
			return err
		}
		v, err := s.client.SystemDropKeyspace(s.ctx, name)
		if err != nil {
			return why(err)
		}
		fmt.Fprintln(s.out, v)
		delete(s.ksCache, name)
		if name == s.keyspace {
			s.keyspace = ""
		}
		return nil
	case p.accept("column"):
		if err := p.expect("family"); err != nil {
			return err
		}
		name, err := p.entity()
		if err != nil {
			return err
		}
		if err := p.end(); err != nil {
			return err
		}
		if !s.hasKeyspace() {
			return nil
		}
		if name, err = s.cfName(name); err != nil {
			return err
		}
		v, err := s.client.SystemDropColumnFamily(s.ctx, name)
		if err != nil {
			return why(err)
		}
		fmt.Fprintln(s.out, v)
		delete(s.ksCache, s.keyspace)
		return nil
	case p.accept("index"):
		if err := p.expect("on"); err != nil {
			return err
		}
		cfText, err := p.entity()
		if err != nil {
			return err
		}
		if err := p.expect("."); err != nil {
			return err
		}
		col, err := p.entity()
		if err != nil {
			return err
		}
		if err := p.end(); err != nil {
			return err
		}
		if !s.hasKeyspace() {
			return nil
		}
		name, err := s.cfName(cfText)
		if err != nil {
			return err
		}
		cur, err := s.cfDef(name)
		if err != nil {
			return err
		}
		cf := *cur
		colName, err := s.nameBytes(&cf, term{text: col}, false)
		if err != nil {
			return err
		}
		found := false
		var cds []*cassandra19.ColumnDef
		for _, cd := range cf.ColumnMetadata {
			c := *cd
			if string(c.Name) == string(colName) {
				found = true
				if c.IndexType == nil {
					return fmt.Errorf("Column '%s' does not have an index.", col)
				}
				c.IndexName, c.IndexType = nil, nil
			}
			cds = append(cds, &c)
		}
		if !found {
			return fmt.Errorf("Column '%s' definition was not found in ColumnFamily '%s'.", col, name)
		}
		cf.ColumnMetadata = cds
		v, err := s.client.SystemUpdateColumnFamily(s.ctx, &cf)
		if err != nil {
			return why(err)
		}
		fmt.Fprintln(s.out, v)
		delete(s.ksCache, s.keyspace)
		return nil
	}
	return p.errAt(p.peek(), "KEYSPACE, COLUMN FAMILY or INDEX")
}

// options is getStrategyOptionsFromTree: a hash, or the deprecated [{...}].
func options(v attrValue) map[string]string {
	h := v.hash
	if v.isArr {
		if len(v.array) == 0 {
			return map[string]string{}
		}
		h = v.array[0]
	}
	m := map[string]string{}
	for _, kv := range h {
		m[kv.key] = kv.val.str()
	}
	return m
}

func ksAttrs(ks *cassandra19.KsDef, attrs []pair) error {
	for _, a := range attrs {
		switch strings.ToUpper(a.key) {
		case "PLACEMENT_STRATEGY":
			ks.StrategyClass = a.val.str()
		case "STRATEGY_OPTIONS":
			ks.StrategyOptions = options(a.val)
		case "DURABLE_WRITES":
			ks.DurableWrites = strings.EqualFold(a.val.raw, "true")
		default:
			return fmt.Errorf("java.lang.IllegalArgumentException: No enum constant org.apache.cassandra.cli.CliClient.AddKeyspaceArgument.%s", strings.ToUpper(a.key))
		}
	}
	if strings.Contains(ks.StrategyClass, ".NetworkTopologyStrategy") && len(ks.StrategyOptions) == 0 {
		ks.StrategyOptions = map[string]string{"datacenter1": "1"}
	}
	return nil
}

func parseDouble(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("For input string: \"%s\"", s)
	}
	return v, nil
}

func parseInt(s string) (int32, error) {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("For input string: \"%s\"", s)
	}
	return int32(v), nil
}

func (s *Session) cfAttrs(cf *cassandra19.CfDef, attrs []pair) error {
	for _, a := range attrs {
		v := a.val.str()
		switch strings.ToUpper(a.key) {
		case "COLUMN_TYPE":
			cf.ColumnType = v
		case "COMPARATOR":
			cf.ComparatorType = v
		case "SUBCOMPARATOR":
			cf.SubcomparatorType = &v
		case "COMMENT":
			cf.Comment = &v
		case "READ_REPAIR_CHANCE", "DCLOCAL_READ_REPAIR_CHANCE", "BLOOM_FILTER_FP_CHANCE":
			d, err := parseDouble(a.val.raw)
			if err != nil {
				return err
			}
			switch strings.ToUpper(a.key) {
			case "READ_REPAIR_CHANCE":
				if d < 0 || d > 1 {
					return fmt.Errorf("Error: read_repair_chance must be between 0 and 1.")
				}
				cf.ReadRepairChance = &d
			case "DCLOCAL_READ_REPAIR_CHANCE":
				if d < 0 || d > 1 {
					return fmt.Errorf("Error: dclocal_read_repair_chance must be between 0 and 1.")
				}
				cf.DclocalReadRepairChance = d
			default:
				cf.BloomFilterFpChance = &d
			}
		case "GC_GRACE", "MIN_COMPACTION_THRESHOLD", "MAX_COMPACTION_THRESHOLD":
			n, err := parseInt(a.val.raw)
			if err != nil {
				return err
			}
			switch strings.ToUpper(a.key) {
			case "GC_GRACE":
				cf.GcGraceSeconds = &n
			case "MIN_COMPACTION_THRESHOLD":
				cf.MinCompactionThreshold = &n
			default:
				cf.MaxCompactionThreshold = &n
			}
		case "COLUMN_METADATA":
			if !a.val.isArr {
				return fmt.Errorf("'column_metadata' format - [{ k:v, k:v, ..}, { ... }, ...]")
			}
			cds, err := s.columnMeta(cf, a.val.array)
			if err != nil {
				return err
			}
			cf.ColumnMetadata = cds
		case "MEMTABLE_OPERATIONS", "MEMTABLE_THROUGHPUT":
		case "DEFAULT_VALIDATION_CLASS":
			cf.DefaultValidationClass = &v
		case "REPLICATE_ON_WRITE":
			b := strings.EqualFold(a.val.raw, "true")
			cf.ReplicateOnWrite = &b
		case "KEY_VALIDATION_CLASS":
			cf.KeyValidationClass = &v
		case "COMPACTION_STRATEGY":
			cf.CompactionStrategy = &v
		case "COMPACTION_STRATEGY_OPTIONS":
			cf.CompactionStrategyOptions = options(a.val)
		case "COMPRESSION_OPTIONS":
			cf.CompressionOptions = options(a.val)
		case "CACHING":
			cf.Caching = v
		case "POPULATE_IO_CACHE_ON_FLUSH":
			b := strings.EqualFold(a.val.raw, "true")
			cf.PopulateIoCacheOnFlush = &b
		default:
			return fmt.Errorf("java.lang.IllegalArgumentException: No enum constant org.apache.cassandra.cli.CliClient.ColumnFamilyArgument.%s", strings.ToUpper(a.key))
		}
	}
	return nil
}

var indexTypes = map[string]cassandra19.IndexType{"KEYS": cassandra19.IndexType_KEYS, "CUSTOM": cassandra19.IndexType_CUSTOM, "COMPOSITES": cassandra19.IndexType_COMPOSITES}

func (s *Session) columnMeta(cf *cassandra19.CfDef, array [][]pair) ([]*cassandra19.ColumnDef, error) {
	var out []*cassandra19.ColumnDef
	for _, h := range array {
		cd := cassandra19.NewColumnDef()
		for _, kv := range h {
			v := kv.val.str()
			switch kv.key {
			case "column_name":
				name, err := s.nameBytes(cf, term{text: v}, cf.ColumnType == "Super")
				if err != nil {
					return nil, err
				}
				cd.Name = name
			case "validation_class":
				cd.ValidationClass = v
			case "index_type":
				t, ok := indexTypes[strings.ToUpper(v)]
				if !ok {
					n, err := strconv.Atoi(v)
					if err != nil || n < 0 || n > 2 {
						return nil, fmt.Errorf("Could not match index type value %s", v)
					}
					t = cassandra19.IndexType(n)
				}
				cd.IndexType = &t
			case "index_options":
				cd.IndexOptions = options(kv.val)
			case "index_name":
				cd.IndexName = &v
			default:
				return nil, fmt.Errorf("Unsupported column_metadata pair given => %s: %s", kv.key, v)
			}
		}
		if cd.Name == nil {
			return nil, fmt.Errorf("org.apache.thrift.protocol.TProtocolException: Required field 'name' was not present! Struct: %s", columnDefString(cd))
		}
		if cd.ValidationClass == "" {
			return nil, fmt.Errorf("org.apache.thrift.protocol.TProtocolException: Required field 'validation_class' was not present! Struct: %s", columnDefString(cd))
		}
		out = append(out, cd)
	}
	return out, nil
}

func columnDefString(cd *cassandra19.ColumnDef) string {
	return fmt.Sprintf("ColumnDef(name:%x, validation_class:%s)", cd.Name, cd.ValidationClass)
}
