package cli12

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// keyType is getKeyComparatorForCF: an assumed key type, else the
// column family's key_validation_class.
func (s *Session) keyType(cf *cassandra19.CfDef) string {
	if t, ok := s.keyTypes[cf.Name]; ok {
		return t
	}
	t, err := formatType(str(cf.KeyValidationClass))
	if err != nil {
		return marshalPrefix + "BytesType"
	}
	return t
}

// callValue is convertValueByFunction: a typed function's bytes.
func callValue(t term) ([]byte, string, error) {
	class, err := functionType(t.fn)
	if err != nil {
		return nil, "", err
	}
	if t.text == "" {
		switch short(class) {
		case "TimeUUIDType":
			return newTimeUUID(), class, nil
		case "LexicalUUIDType":
			u := newTimeUUID()
			u[6] = u[6]&0x0f | 0x40
			return u, class, nil
		case "BytesType":
			return []byte{}, class, nil
		}
		return nil, "", fmt.Errorf("java.lang.RuntimeException: Argument for '%s' could not be empty.", t.fn)
	}
	b, err := fromString(class, t.text)
	if err != nil {
		return nil, "", fmt.Errorf("java.lang.RuntimeException: %v", err)
	}
	return b, class, nil
}

func (s *Session) keyBytes(cf *cassandra19.CfDef, t term) ([]byte, error) {
	if t.call {
		b, _, err := callValue(t)
		return b, err
	}
	return fromString(s.keyType(cf), t.text)
}

func (s *Session) nameBytes(cf *cassandra19.CfDef, t term, sub bool) ([]byte, error) {
	if t.call {
		b, _, err := callValue(t)
		return b, err
	}
	cmp := cf.ComparatorType
	if sub {
		cmp = str(cf.SubcomparatorType)
		if cmp == "" {
			fmt.Fprintf(s.out, "Notice: defaulting to BytesType subcomparator for '%s'\n", cf.Name)
			cmp = "BytesType"
		}
	}
	class, err := formatType(cmp)
	if err != nil {
		return nil, err
	}
	return fromString(class, t.text)
}

// validator is getValidatorForValue: the column's validation_class, else
// the default validator.
func validator(cf *cassandra19.CfDef, name []byte) string {
	for _, cd := range cf.ColumnMetadata {
		if bytes.Equal(cd.Name, name) {
			c, _ := formatType(cd.ValidationClass)
			return c
		}
	}
	if d := str(cf.DefaultValidationClass); d != "" {
		c, _ := formatType(d)
		return c
	}
	return ""
}

func (s *Session) valueString(cf *cassandra19.CfDef, name, value []byte) string {
	v := validator(cf, name)
	if v == "" {
		return string(value)
	}
	return getString(v, value)
}

func nameString(cf *cassandra19.CfDef, name []byte, sub bool) string {
	cmp := cf.ComparatorType
	if sub {
		cmp = str(cf.SubcomparatorType)
	}
	c, _ := formatType(cmp)
	return getString(c, name)
}

// updateColumnMeta is updateColumnMetaData: a typed set records the
// value's type for the column in the cached schema.
func updateColumnMeta(cf *cassandra19.CfDef, name []byte, class string) {
	for _, cd := range cf.ColumnMetadata {
		if bytes.Equal(cd.Name, name) {
			cd.ValidationClass = class
			return
		}
	}
	cf.ColumnMetadata = append(cf.ColumnMetadata, &cassandra19.ColumnDef{Name: name, ValidationClass: class})
}

func ttlSuffix(c *cassandra19.Column) string {
	if c.TTL != nil {
		return fmt.Sprintf(", ttl=%d", *c.TTL)
	}
	return ""
}

func isCounter(cf *cassandra19.CfDef) bool {
	return short(str(cf.DefaultValidationClass)) == "CounterColumnType"
}

func ts(c *cassandra19.Column) int64 {
	if c.Timestamp == nil {
		return 0
	}
	return *c.Timestamp
}

// valueBytes is columnValueAsBytes: a literal through the column's
// validation_class, else the default validator.
func valueBytes(cf *cassandra19.CfDef, name []byte, text string) ([]byte, error) {
	for _, cd := range cf.ColumnMetadata {
		if bytes.Equal(cd.Name, name) {
			class, err := formatType(cd.ValidationClass)
			if err != nil {
				return nil, err
			}
			b, err := fromString(class, text)
			if err != nil {
				return nil, fmt.Errorf("java.lang.RuntimeException: %v", err)
			}
			return b, nil
		}
	}
	class, err := formatType(str(cf.DefaultValidationClass))
	if err != nil {
		return nil, err
	}
	b, err := fromString(class, text)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "org.apache.cassandra.db.marshal.MarshalException: "))
	}
	return b, nil
}

func validUTF8(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }
