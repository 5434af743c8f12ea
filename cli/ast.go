package cli

// Statement is one parsed command. The concrete types below are the
// whole language; docs/thriftd-cli.md gives the grammar.
type Statement interface{ statement() }

// Help lists the commands.
type Help struct{}

// Quit ends the shell (quit or exit).
type Quit struct{}

// Connect opens a connection to Host on Port, closing the current one.
type Connect struct {
	Host string
	Port int
}

// Use makes Keyspace the default for paths that name no keyspace and,
// when the shell has credentials, logs in to it.
type Use struct{ Keyspace string }

// What Show shows.
const (
	ShowKeyspaces   = "keyspaces"
	ShowClusterName = "cluster name"
	ShowAPIVersion  = "api version"
	ShowConfigFile  = "config file"
)

// Show prints a server property: one of the Show* constants.
type Show struct{ What string }

// Describe lists the column families of Keyspace ("" for the default).
type Describe struct{ Keyspace string }

// Get reads a row, a super column, a column or a sub-column. Range,
// Limit and Reversed apply to slices only.
type Get struct {
	Path  Path
	Range *Range
	// Limit is the most columns to return; 0 means all of them.
	Limit    int
	Reversed bool
}

// Set writes Value at Path (a column, or a super column's sub-column).
type Set struct {
	Path  Path
	Value Literal
}

// Del removes the row, super column, column or sub-column at Path.
type Del struct{ Path Path }

// Count counts the columns of a row, or the sub-columns of a super column.
type Count struct{ Path Path }

func (Help) statement()     {}
func (Quit) statement()     {}
func (Connect) statement()  {}
func (Use) statement()      {}
func (Show) statement()     {}
func (Describe) statement() {}
func (Get) statement()      {}
func (Set) statement()      {}
func (Del) statement()      {}
func (Count) statement()    {}

// Path is Keyspace.ColumnFamily['key'] followed by zero to two names:
// a column, a super column, or a super column and its sub-column. Which
// one a name is depends on the column family's type, known only once
// connected.
type Path struct {
	// Keyspace is "" when the path leaves it out (the default applies).
	Keyspace     string
	ColumnFamily string
	Key          string
	Names        []Literal
}

// Range bounds a slice; a nil bound is unbounded. Both bounds are
// inclusive, as in a Thrift SliceRange.
type Range struct {
	Start, Finish *Literal
}

// LitKind is the written form of a literal.
type LitKind int

// The literal forms.
const (
	LitString LitKind = iota // 'text'
	LitNumber                // 42, -7
	LitUUID                  // 550e8400-e29b-41d4-a716-446655440000
	LitHex                   // 0x00ff
	LitFunc                  // long(42), timeuuid(), lexicaluuid()
)

// Literal is a name or value as written; Encode turns it into bytes for
// a comparator.
type Literal struct {
	Kind LitKind
	// Text is the string's value, the number's or UUID's digits, the hex
	// digits, or for LitFunc the function's name in lower case.
	Text string
	// Arg is LitFunc's argument, if any.
	Arg *Literal
	// Pos is the byte offset of the literal in the input.
	Pos int
}
