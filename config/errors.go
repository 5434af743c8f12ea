package config

// Error is a configuration that thriftd refuses to start with, or a file it
// cannot read. Msg is Cassandra 0.6's own message wherever 0.6 had one, so
// operators can search for it; File and Element say where the problem is.
type Error struct {
	// File is the path of the file, as given to Load, Parse or LoadAuth.
	File string
	// Element locates the problem inside the file as an XPath-like path,
	// e.g. "/Storage/Keyspaces/Keyspace[@Name='Foo']/ColumnFamily[@Name='Bar']",
	// with a final "/@Attr" step for an attribute and a position
	// ("Keyspace[2]") for an element without a Name. It is "line N" in a
	// properties file, and empty when the whole file is at fault.
	Element string
	// Msg is the message alone, without File and Element.
	Msg string
	// Err is the underlying error, if any (e.g. from reading the file).
	Err error
}

// Error returns "File: Element: Msg", leaving out an empty File or Element.
func (e *Error) Error() string {
	s := e.Msg
	if e.Element != "" {
		s = e.Element + ": " + s
	}
	if e.File != "" {
		s = e.File + ": " + s
	}
	return s
}

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.Err }
