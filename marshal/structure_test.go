package marshal

import "testing"

func TestComponentsAndUnreversed(t *testing.T) {
	c, err := Parse("CompositeType(UTF8Type,LongType(reversed=true))")
	if err != nil {
		t.Fatal(err)
	}
	comps := Components(c)
	if len(comps) != 2 || comps[0].Name() != marshalPackage+"UTF8Type" {
		t.Fatalf("Components = %v", comps)
	}
	base, rev := Unreversed(comps[1])
	if !rev || base.Name() != marshalPackage+"LongType" {
		t.Errorf("Unreversed(%s) = %s, %v", comps[1].Name(), base.Name(), rev)
	}
	if base, rev := Unreversed(comps[0]); rev || base != comps[0] {
		t.Errorf("Unreversed(UTF8Type) = %s, %v", base.Name(), rev)
	}
	for _, name := range []string{"UTF8Type", "ReversedType(LongType)", "DynamicCompositeType(a=>UTF8Type)"} {
		other, err := Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		if Components(other) != nil {
			t.Errorf("Components(%s) = %v, want nil", name, Components(other))
		}
	}
	if Components(BytesType{}) != nil {
		t.Error("Components(0.6 BytesType) is not nil")
	}
}

func TestComparable12(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		name []byte
		want bool
	}{
		{"LongType", []byte("x"), true},
		{"Int32Type", []byte{1, 2, 3}, true},
		{"DoubleType", []byte{1, 2, 3, 4}, false},
		{"DoubleType", make([]byte, 8), true},
		{"FloatType", []byte{1, 2}, false},
		{"DecimalType", []byte{1, 2, 3}, false},
		{"DecimalType", []byte{0, 0, 0, 1}, false},
		{"DecimalType", []byte{0, 0, 0, 1, 5}, true},
		{"LexicalUUIDType", make([]byte, 3), false},
		{"TimeUUIDType", make([]byte, 7), false},
		{"UUIDType", make([]byte, 15), true},
		{"ReversedType(DoubleType)", []byte{1}, false},
		{"CompositeType(UTF8Type,LongType)", []byte{0, 5, 'a'}, false},
		{"CompositeType(UTF8Type,LongType)", []byte{0, 1, 'a', 0, 0, 3, 1, 2, 3, 0}, true},
		{"CompositeType(UTF8Type,LongType)", []byte{0, 1, 'a', 0, 0, 1, 'b', 0, 0, 1, 'c', 0}, false},
		{"CompositeType(UTF8Type,DoubleType)", []byte{0, 1, 'a', 0, 0, 1, 1, 0}, false},
		{"CompositeType(UTF8Type,LongType)", []byte{0, 1, 'a'}, false},
	} {
		c, err := Parse(tc.typ)
		if err != nil {
			t.Fatal(err)
		}
		if got := Comparable12(c, tc.name); got != tc.want {
			t.Errorf("Comparable12(%s, %x) = %v, want %v", tc.typ, tc.name, got, tc.want)
		}
	}
}
