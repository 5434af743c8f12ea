package handler19

import (
	"context"
	"math"
	"sort"

	"github.com/google/uuid"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/schema"
)

// snitch is what describe_snitch answers: one node, one rack.
const snitch = "org.apache.cassandra.locator.SimpleSnitch"

// login is ClientState.login: the credentials are checked, and the user
// is the connection's from then on.
func (c *conn) login(ctx context.Context, req *cassandra19.AuthenticationRequest) error {
	g := c.s.guard
	if g == nil {
		c.a.User = "anonymous"
		return nil
	}
	return g.Login(ctx, &c.a, "login", req.GetCredentials())
}

// validateLogin is ClientState.validateLogin, which the describe calls
// run: a client that must log in has done so.
func (c *conn) validateLogin() error {
	if g := c.s.guard; g != nil {
		return g.CheckLogin(&c.a)
	}
	return nil
}

// authKeyspace reports system_auth under an authenticator that needs
// logins, where 2.1 has that keyspace.
func (c *conn) authKeyspace(keyspace string) bool {
	g := c.s.guard
	return keyspace == "system_auth" && g != nil && g.RequiresLogin()
}

// mustLogIn reports whether the connection still needs a login.
func (c *conn) mustLogIn() bool {
	g := c.s.guard
	return g != nil && g.RequiresLogin() && !c.a.LoggedIn()
}

// freshener is a SchemaChanger serving a schema that may also change
// outside the 19.x API (catalog's adopted keyspaces, changed with
// CQL).
type freshener interface {
	Fresh(ctx context.Context) error
}

// fresh brings such a schema up to date before a call that describes or
// names keyspaces; a failure leaves the schema served as it was.
func (s *Service) fresh(ctx context.Context) {
	if f, ok := s.changer.(freshener); ok {
		if err := f.Fresh(ctx); err != nil {
			s.log.Warn("reading the schema again failed", "err", err)
		}
	}
}

// setKeyspace is ClientState.setKeyspace. A client that has not logged in
// (where login is required) may name a keyspace that does not exist, as
// some client libraries call set_keyspace before login. Under
// PasswordAuthenticator the server's keyspace system_auth exists, as it
// does in 2.1 with authentication on, though thriftd serves none of its
// tables over Thrift.
func (c *conn) setKeyspace(keyspace string) error {
	if !c.mustLogIn() && c.s.schema().Keyspace(keyspace) == nil && !c.authKeyspace(keyspace) {
		return invalid("Keyspace '%s' does not exist", keyspace)
	}
	c.keyspace = keyspace
	return nil
}

// describeKeyspace is describe_keyspace: the keyspace's KsDef, or
// NotFoundException.
func (c *conn) describeKeyspace(keyspace string) (*cassandra19.KsDef, error) {
	if err := c.validateLogin(); err != nil {
		return nil, err
	}
	ks := c.s.schema().Keyspace(keyspace)
	if ks == nil {
		return nil, errNotFound
	}
	return ksDef(ks), nil
}

// describeKeyspaces is every keyspace's KsDef, by name.
func (c *conn) describeKeyspaces() ([]*cassandra19.KsDef, error) {
	if err := c.validateLogin(); err != nil {
		return nil, err
	}
	sch := c.s.schema()
	out := make([]*cassandra19.KsDef, 0, len(sch.Keyspaces))
	for _, name := range sch.KeyspaceNames() {
		out = append(out, ksDef(sch.Keyspaces[name]))
	}
	return out, nil
}

// describeRing is the ring of one node: the whole ring, from its token
// round to its token, held by this node.
func (s *Service) describeRing(keyspace string) ([]*cassandra19.TokenRange, error) {
	sch := s.schema()
	if sch.Keyspace(keyspace) == nil || keyspace == schema.SystemKeyspace {
		return nil, invalid("There is no ring for the keyspace: %s", keyspace)
	}
	t := sch.Partitioner.TokenString(s.nodeToken)
	return []*cassandra19.TokenRange{{
		StartToken:      t,
		EndToken:        t,
		Endpoints:       []string{s.nodeAddress},
		RPCEndpoints:    []string{s.nodeAddress},
		EndpointDetails: []*cassandra19.EndpointDetails{{Host: s.nodeAddress, Datacenter: "datacenter1", Rack: strPtr("rack1")}},
	}}, nil
}

// describeTokenMap maps each node's token to its address.
func (s *Service) describeTokenMap() map[string]string {
	return map[string]string{s.schema().Partitioner.TokenString(s.nodeToken): s.nodeAddress}
}

// describeSchemaVersions is every node's schema version, as the store
// knows them (Options.SchemaVersions); without it, this node's.
func (s *Service) describeSchemaVersions(ctx context.Context) (map[string][]string, error) {
	if s.schemaVersions != nil {
		return s.schemaVersions(ctx)
	}
	v := s.schema().Version
	if v == "" {
		v = schemaVersionUnknown
	}
	return map[string][]string{v: {s.nodeAddress}}, nil
}

// schemaVersionUnknown stands for a schema that has no version yet.
const schemaVersionUnknown = "59adb24e-f3cd-3e02-97f0-5b395827453f"

// indexInterval is the rows between two keys of an sstable's index
// summary in Cassandra 2.1 (min_index_interval; 1.2's index_interval), by
// default: describe_splits_ex cut the ring at those sampled keys, and
// estimated a split's rows as its samples times the interval.
const indexInterval = 128

// describeSplitsEx is describe_splits_ex: the token range cut into pieces
// of about keysPerSplit rows of the family, as 2.1.21 cut them from its
// sstables' index samples (StorageService.getSplits). thriftd's samples
// are the tokens of the family's first row in the range and of every
// indexInterval-th row after it, as the index summary of one sstable
// holding the family's rows sampled them; rows still in a memtable gave
// Cassandra no samples, and one split of 128 rows.
func (c *conn) describeSplitsEx(ctx context.Context, cfName, startToken, endToken string, keysPerSplit int32) ([]*cassandra19.CfSplit, error) {
	ks, err := c.keyspaceOf()
	if err != nil {
		return nil, err
	}
	sch := c.s.schema()
	if _, err := c.s.validateColumnFamily(sch, ks, cfName); err != nil {
		return nil, err
	}
	p := sch.Partitioner
	left, err := parseToken(p, startToken)
	if err != nil {
		return nil, err
	}
	right, err := parseToken(p, endToken)
	if err != nil {
		return nil, err
	}
	if keysPerSplit <= 0 {
		keysPerSplit = 1
	}
	tokens := []string{startToken}
	keysOnly := engine.Query{ColumnFamily: cfName, Predicate: engine.Predicate{Names: [][]byte{}}}
	for _, b := range engine.RingRange(left, right) {
		first, err := c.s.store.Range(ctx, ks, b, keysOnly, 1)
		if err != nil {
			return nil, err
		}
		if len(first) == 0 {
			continue
		}
		ft := p.Token(first[0].Key)
		tokens = append(tokens, p.TokenString(ft))
		rest, err := c.s.store.Splits(ctx, ks, cfName, engine.TokenRange{Start: ft, End: b.End}, indexInterval)
		if err != nil {
			return nil, err
		}
		for _, t := range rest {
			tokens = append(tokens, p.TokenString(t))
		}
	}
	return cutSplits(append(tokens, endToken), int(keysPerSplit)), nil
}

// cutSplits is 2.1.21's StorageService.getSplits over tokens, the range's
// start, its samples in ring order and its end: about one split per
// keysPerSplit estimated rows (the samples times indexInterval), each of
// at least 4 samples (fewer would make the estimate too coarse), cut at
// samples evenly spread; a split's row count is the samples in it times
// indexInterval, and at least indexInterval (CASSANDRA-7322).
func cutSplits(tokens []string, keysPerSplit int) []*cassandra19.CfSplit {
	samples := len(tokens) - 2
	estimate := max(1, int64(samples)*indexInterval)
	count := max(1, min(samples/4+1, int(estimate/int64(keysPerSplit))))
	step := float64(len(tokens)-1) / float64(count)
	out := make([]*cassandra19.CfSplit, 0, count)
	prev := 0
	for i := 1; i <= count; i++ {
		// Java's Math.round: half up.
		idx := int(math.Floor(float64(i)*step + 0.5))
		held := idx - prev
		if idx == len(tokens)-1 {
			held-- // the range's end is no sample
		}
		out = append(out, &cassandra19.CfSplit{StartToken: tokens[prev], EndToken: tokens[idx], RowCount: max(indexInterval, int64(held)*indexInterval)})
		prev = idx
	}
	return out
}

// describeSplits is describe_splits: the bounds of describe_splits_ex.
func (c *conn) describeSplits(ctx context.Context, cfName, startToken, endToken string, keysPerSplit int32) ([]string, error) {
	splits, err := c.describeSplitsEx(ctx, cfName, startToken, endToken, keysPerSplit)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(splits)+1)
	out = append(out, splits[0].StartToken)
	for _, s := range splits {
		out = append(out, s.EndToken)
	}
	return out, nil
}

// traceNextQuery answers a session id for the next query's trace. thriftd
// keeps no traces; the id is a time-based UUID, as the real server's.
func traceNextQuery() []byte {
	id, err := uuid.NewUUID()
	if err != nil {
		id = uuid.New()
	}
	return id[:]
}

// ksDef is a keyspace as the 19.x API describes it.
func ksDef(ks *schema.Keyspace) *cassandra19.KsDef {
	o := ks.Options
	if o.StrategyClass == "" {
		o = schema.StrategyOf19(ks.ReplicaPlacementStrategy, ks.ReplicationFactor)
	}
	names := make([]string, 0, len(ks.ColumnFamilies))
	for n := range ks.ColumnFamilies {
		names = append(names, n)
	}
	sort.Strings(names)
	defs := make([]*cassandra19.CfDef, 0, len(names))
	for _, n := range names {
		defs = append(defs, cfDef(ks.ColumnFamilies[n]))
	}
	return &cassandra19.KsDef{
		Name:            ks.Name,
		StrategyClass:   o.StrategyClass,
		StrategyOptions: copyMap(o.StrategyOptions),
		CfDefs:          defs,
		DurableWrites:   o.DurableWrites,
	}
}

// cfDef is a column family as CFMetaData.toThrift describes it.
func cfDef(cf *schema.ColumnFamily) *cassandra19.CfDef {
	o := cf.Options
	d := &cassandra19.CfDef{
		Keyspace:                  cf.Keyspace,
		Name:                      cf.Name,
		ColumnType:                cf.Type(),
		ComparatorType:            typeName(cf.Comparator),
		Comment:                   strPtr(cf.Comment),
		ReadRepairChance:          &o.ReadRepairChance,
		DclocalReadRepairChance:   o.DCLocalReadRepairChance,
		ReplicateOnWrite:          o.ReplicateOnWrite,
		PopulateIoCacheOnFlush:    o.PopulateIOCacheOnFlush,
		GcGraceSeconds:            int32Ptr(cf.GCGraceSeconds),
		DefaultValidationClass:    strPtr(typeName(cf.DefaultValidator)),
		KeyValidationClass:        strPtr(typeName(cf.KeyValidator)),
		MinCompactionThreshold:    int32Ptr(o.MinCompactionThreshold),
		MaxCompactionThreshold:    int32Ptr(o.MaxCompactionThreshold),
		KeyAlias:                  o.KeyAlias,
		CompactionStrategy:        strPtr(o.CompactionStrategy),
		CompactionStrategyOptions: copyMap(o.CompactionStrategyOptions),
		CompressionOptions:        copyMap(o.CompressionOptions),
		BloomFilterFpChance:       o.BloomFilterFPChance,
		Caching:                   o.Caching,
		// Left at the IDL's defaults, these are not sent: 1.2 set neither.
		SpeculativeRetry:   "NONE",
		CellsPerRowToCache: "100",
		ColumnMetadata:     []*cassandra19.ColumnDef{},
	}
	if cf.Super {
		d.SubcomparatorType = strPtr(typeName(cf.SubComparator))
	}
	// 2.0's and 2.1's properties, described back as a client sent them.
	d.IndexInterval, d.MemtableFlushPeriodInMs = o.IndexInterval, o.MemtableFlushPeriodMs
	d.MinIndexInterval, d.MaxIndexInterval = o.MinIndexInterval, o.MaxIndexInterval
	if cf.DefaultTTL != 0 {
		d.DefaultTimeToLive = int32Ptr(cf.DefaultTTL)
	}
	if o.SpeculativeRetry != "" {
		d.SpeculativeRetry = o.SpeculativeRetry
	}
	if o.CellsPerRowToCache != "" {
		d.CellsPerRowToCache = o.CellsPerRowToCache
	}
	for _, tr := range o.Triggers {
		d.Triggers = append(d.Triggers, &cassandra19.TriggerDef{Name: tr.Name, Options: copyMap(tr.Options)})
	}
	for _, col := range cf.Columns {
		cd := &cassandra19.ColumnDef{Name: col.Name, ValidationClass: typeName(col.Validator)}
		if ix := col.Index; ix != nil {
			t := cassandra19.IndexType(ix.Type)
			cd.IndexType = &t
			if ix.Name != "" {
				cd.IndexName = strPtr(ix.Name)
			}
			if ix.Options != nil {
				cd.IndexOptions = copyMap(ix.Options)
			}
		}
		d.ColumnMetadata = append(d.ColumnMetadata, cd)
	}
	cmp := cf.Comparator
	if cf.Super {
		cmp = cf.SubComparator
	}
	d.ColumnMetadata = hashMapOrder(d.ColumnMetadata, func(name []byte) string { return typeString(cmp, name) })
	return d
}

// typeName is a type as the real server prints it; no type is BytesType.
func typeName(t interface{ Name() string }) string {
	if t == nil {
		return "org.apache.cassandra.db.marshal.BytesType"
	}
	return t.Name()
}

func strPtr(s string) *string { return &s }
func int32Ptr(n int32) *int32 { return &n }
func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
