package comparator

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
