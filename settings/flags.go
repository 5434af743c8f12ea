package settings

import (
	"flag"
	"reflect"
)

// Flags are the settings given on a command line, the top layer of
// Resolve. The zero value holds none.
type Flags struct {
	// set holds the flags given, in command-line order: a flag given twice
	// appears twice and the later one wins.
	set []assignment
}

// AddFlags defines on fs the flag of every setting that has one, with its
// help text and default, and returns where the values given are kept once
// fs has parsed a command line.
func AddFlags(fs *flag.FlagSet) *Flags {
	fl := &Flags{}
	for _, f := range fields() {
		if f.flag == "" {
			continue
		}
		fs.Var(&flagValue{f: f, flags: fl}, f.flag, f.usage())
	}
	return fl
}

// Apply sets in s the values given as flags, unchecked: for what is needed
// before Resolve has succeeded, such as how to log its error.
func (fl *Flags) Apply(s *Settings) {
	for _, a := range fl.set {
		a.f.value(s).Set(a.v)
	}
}

// flagValue is one setting's flag.Value.
type flagValue struct {
	f     *field
	flags *Flags
	text  string // as last given; the default until then
	given bool
}

func (v *flagValue) String() string {
	switch {
	case v == nil || v.f == nil: // the zero value the flag package makes to print defaults
		return ""
	case v.given:
		return v.text
	}
	return v.f.def
}

func (v *flagValue) Set(text string) error {
	val, err := v.f.parse(text)
	if err != nil {
		return err
	}
	v.text, v.given = text, true
	v.flags.set = append(v.flags.set, assignment{v.f, val, Origin{Layer: CommandLine, Flag: v.f.flag}})
	return nil
}

// IsBoolFlag lets a boolean setting's flag stand alone (-name for true).
func (v *flagValue) IsBoolFlag() bool { return v.f != nil && v.f.typ.Kind() == reflect.Bool }
