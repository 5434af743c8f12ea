package settings

import "fmt"

// Origin says where a setting's value came from: a layer, and the place in
// it. Errors about a value name its Origin, so that the operator is sent to
// the line to change.
type Origin struct {
	Layer Layer
	// File is the file of a YAMLFile or StorageConf value.
	File string
	// Line and Column locate a YAMLFile value (1-based).
	Line, Column int
	// Element names the storage-conf.xml element(s) of a StorageConf value.
	Element string
	// Flag is the flag of a CommandLine value, without its dash.
	Flag string
}

// Layer is one source of settings; a later layer overrides an earlier one.
type Layer int

const (
	// Default is the default tag of the setting.
	Default Layer = iota
	// StorageConf is a value read from storage-conf.xml.
	StorageConf
	// YAMLFile is a value written in thriftd.yaml.
	YAMLFile
	// CommandLine is a value given by a flag.
	CommandLine
)

// String is how messages and -print-config name the origin, e.g.
// "thriftd.yaml:12:3", "-listen", "storage-conf.xml: ThriftPort" or
// "default".
func (o Origin) String() string {
	switch o.Layer {
	case StorageConf:
		return o.File + ": " + o.Element
	case YAMLFile:
		return fmt.Sprintf("%s:%d:%d", o.File, o.Line, o.Column)
	case CommandLine:
		return "-" + o.Flag
	}
	return "default"
}

// errorf returns an error about the value of f from o, in the form
// "thriftd.yaml:12:3: limits.max_connections: ..." or
// "-max-connections: ..." for a flag.
func (o Origin) errorf(f *field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	switch o.Layer {
	case CommandLine:
		return fmt.Errorf("-%s: %s", o.Flag, msg)
	case Default:
		return fmt.Errorf("%s: %s", f.key, msg)
	}
	return fmt.Errorf("%s: %s: %s", o, f.key, msg)
}
