package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Column is one column as shown: name and value already formatted
// through the column family's comparator.
type Column struct {
	Name      string `json:"name"`
	Value     string `json:"value"`
	Timestamp int64  `json:"timestamp"`
}

// SuperColumn is one super column and its sub-columns, as shown.
type SuperColumn struct {
	Name    string   `json:"name"`
	Columns []Column `json:"columns"`
}

// ColumnFamilyInfo is one column family of describe keyspace.
type ColumnFamilyInfo struct {
	Name                  string `json:"name"`
	Type                  string `json:"type"`
	CompareWith           string `json:"compare_with"`
	CompareSubcolumnsWith string `json:"compare_subcolumns_with,omitempty"`
	// Comment is the column family's description when the configuration
	// gives one.
	Comment string `json:"comment,omitempty"`
}

// Printer shows what statements return. Human prints cassandra-cli
// 0.6's lines; JSON prints one JSON object per statement.
type Printer interface {
	// Column is one column of a slice; SuperColumn one super column.
	Column(Column)
	SuperColumn(SuperColumn)
	// Returned ends a slice of n results.
	Returned(n int)
	// One is the column of a get that names a single column.
	One(Column)
	// Count is the result of count.
	Count(n int)
	// Done is the confirmation of a write: "Value inserted.", "row
	// removed." or "column removed.".
	Done(msg string)
	// Property is a server property (key names it for JSON).
	Property(key, value string)
	// Keyspaces is the list of show keyspaces.
	Keyspaces([]string)
	// Describe is describe keyspace.
	Describe(keyspace string, cfs []ColumnFamilyInfo)
	// Connected reports a new connection.
	Connected(cluster, host string, port int)
	// Help prints the command list.
	Help()
	// Error reports a failed statement.
	Error(error)
}

// HumanPrinter prints cassandra-cli 0.6's output lines to Out and error
// lines to Err.
type HumanPrinter struct {
	Out, Err io.Writer
}

func (p *HumanPrinter) colLine(c Column) string {
	return fmt.Sprintf("(column=%s, value=%s, timestamp=%d)", c.Name, c.Value, c.Timestamp)
}

// Column implements Printer.
func (p *HumanPrinter) Column(c Column) { fmt.Fprintf(p.Out, "=> %s\n", p.colLine(c)) }

// SuperColumn implements Printer.
func (p *HumanPrinter) SuperColumn(s SuperColumn) {
	var b strings.Builder
	fmt.Fprintf(&b, "=> (super_column=%s,", s.Name)
	for _, c := range s.Columns {
		fmt.Fprintf(&b, "\n     %s", p.colLine(c))
	}
	b.WriteString(")\n")
	io.WriteString(p.Out, b.String())
}

// Returned implements Printer.
func (p *HumanPrinter) Returned(n int) { fmt.Fprintf(p.Out, "Returned %d results.\n", n) }

// One implements Printer.
func (p *HumanPrinter) One(c Column) { p.Column(c) }

// Count implements Printer.
func (p *HumanPrinter) Count(n int) { fmt.Fprintf(p.Out, "%d columns\n", n) }

// Done implements Printer.
func (p *HumanPrinter) Done(msg string) { fmt.Fprintln(p.Out, msg) }

// Property implements Printer.
func (p *HumanPrinter) Property(_, value string) { fmt.Fprintln(p.Out, value) }

// Keyspaces implements Printer.
func (p *HumanPrinter) Keyspaces(ks []string) {
	for _, k := range ks {
		fmt.Fprintln(p.Out, k)
	}
}

// Describe implements Printer.
func (p *HumanPrinter) Describe(_ string, cfs []ColumnFamilyInfo) {
	for _, cf := range cfs {
		fmt.Fprintf(p.Out, "Column Family Name: %s\n", cf.Name)
		fmt.Fprintf(p.Out, "Column Family Type: %s\n", cf.Type)
		fmt.Fprintf(p.Out, "Column Sorted By: %s\n", cf.CompareWith)
		if cf.CompareSubcolumnsWith != "" {
			fmt.Fprintf(p.Out, "Sub-Columns Sorted By: %s\n", cf.CompareSubcolumnsWith)
		}
		if cf.Comment != "" {
			fmt.Fprintf(p.Out, "Description: %s\n", cf.Comment)
		}
		fmt.Fprintln(p.Out, "------")
	}
}

// Connected implements Printer.
func (p *HumanPrinter) Connected(cluster, host string, port int) {
	fmt.Fprintf(p.Out, "Connected to: %q on %s/%d\n", cluster, host, port)
}

// Help implements Printer.
func (p *HumanPrinter) Help() { io.WriteString(p.Out, helpText) }

// Error implements Printer.
func (p *HumanPrinter) Error(err error) { fmt.Fprintln(p.Err, err) }

// JSONPrinter prints one JSON object per statement to Out, and errors as
// {"error": "..."} to Err. A slice is printed whole once it has ended.
type JSONPrinter struct {
	Out, Err io.Writer
	results  []any
}

func (p *JSONPrinter) emit(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // a configuration file is XML: keep its < and >
	enc.Encode(v)
}

// Column implements Printer.
func (p *JSONPrinter) Column(c Column) {
	p.results = append(p.results, map[string]any{"column": c})
}

// SuperColumn implements Printer.
func (p *JSONPrinter) SuperColumn(s SuperColumn) {
	if s.Columns == nil {
		s.Columns = []Column{}
	}
	p.results = append(p.results, map[string]any{"super_column": s})
}

// Returned implements Printer.
func (p *JSONPrinter) Returned(n int) {
	r := p.results
	if r == nil {
		r = []any{}
	}
	p.emit(p.Out, map[string]any{"results": r, "returned": n})
	p.results = nil
}

// One implements Printer.
func (p *JSONPrinter) One(c Column) { p.emit(p.Out, map[string]any{"column": c}) }

// Count implements Printer.
func (p *JSONPrinter) Count(n int) { p.emit(p.Out, map[string]any{"count": n}) }

// Done implements Printer.
func (p *JSONPrinter) Done(msg string) { p.emit(p.Out, map[string]any{"ok": msg}) }

// Property implements Printer.
func (p *JSONPrinter) Property(key, value string) { p.emit(p.Out, map[string]any{key: value}) }

// Keyspaces implements Printer.
func (p *JSONPrinter) Keyspaces(ks []string) {
	if ks == nil {
		ks = []string{}
	}
	p.emit(p.Out, map[string]any{"keyspaces": ks})
}

// Describe implements Printer.
func (p *JSONPrinter) Describe(ks string, cfs []ColumnFamilyInfo) {
	if cfs == nil {
		cfs = []ColumnFamilyInfo{}
	}
	p.emit(p.Out, map[string]any{"keyspace": ks, "column_families": cfs})
}

// Connected implements Printer.
func (p *JSONPrinter) Connected(cluster, host string, port int) {
	p.emit(p.Out, map[string]any{"connected": map[string]any{"cluster_name": cluster, "host": host, "port": port}})
}

// Help implements Printer.
func (p *JSONPrinter) Help() { p.emit(p.Out, map[string]any{"help": helpText}) }

// Error implements Printer. A slice cut short by the error is dropped.
func (p *JSONPrinter) Error(err error) {
	p.results = nil
	p.emit(p.Err, map[string]any{"error": err.Error()})
}

// helpText is 0.6's help, with thriftd-cli's additions.
const helpText = `List of all CLI commands:
?                                                                  Same as help.
help                                                          Display this help.
connect <hostname>/<port>                             Connect to thrift service.
use <keyspace>                             Use a keyspace for paths without one.
describe keyspace [<keyspacename>]                            Describe keyspace.
exit                                                                   Exit CLI.
quit                                                                   Exit CLI.
show cluster name                                          Display cluster name.
show keyspaces                                           Show list of keyspaces.
show api version                                        Show server API version.
show config file                                Show the server's configuration.
get <ksp>.<cf>['<key>']                                  Get a slice of columns.
get <ksp>.<cf>['<key>']['<super>']                   Get a slice of sub columns.
get <ksp>.<cf>['<key>']['<col>']                             Get a column value.
get <ksp>.<cf>['<key>']['<super>']['<col>']              Get a sub column value.
get <ksp>.<cf>['<key>'][<start>:<finish>]            Get the columns in a range.
get ... [limit <n>] [reversed]                 At most n columns, or in reverse.
set <ksp>.<cf>['<key>']['<col>'] = '<value>'                       Set a column.
set <ksp>.<cf>['<key>']['<super>']['<col>'] = '<value>'        Set a sub column.
del <ksp>.<cf>['<key>']                                           Delete record.
del <ksp>.<cf>['<key>']['<col>']                                  Delete column.
del <ksp>.<cf>['<key>']['<super>']['<col>']                   Delete sub column.
count <ksp>.<cf>['<key>']                               Count columns in record.
count <ksp>.<cf>['<key>']['<super>']            Count columns in a super column.
Names and values: 'text' (\' for a quote), 42 (LongType), a UUID,
0x0a0b (bytes), long(42), timeuuid(), lexicaluuid().
`
