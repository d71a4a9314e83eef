package main

import (
	"fmt"
	"go/types"
	"sort"
	"strings"
)

// Kind is the kind of an exported identifier.
type Kind string

// The kinds of identifiers the checker compares, in report order.
const (
	KindType      Kind = "type"
	KindFunc      Kind = "func"
	KindMethod    Kind = "method"
	KindField     Kind = "field"
	KindInterface Kind = "interface method"
	KindConst     Kind = "const"
	KindVar       Kind = "var"
)

// Kinds lists every Kind in report order.
var Kinds = []Kind{KindType, KindFunc, KindMethod, KindField, KindInterface, KindConst, KindVar}

// Status is the outcome of comparing one identifier.
type Status string

// The comparison outcomes.
const (
	StatusOK        Status = "ok"
	StatusMissing   Status = "missing"
	StatusDiffering Status = "differing"
)

// Item is one exported identifier of the reference package and how the
// candidate package declares it.
type Item struct {
	Kind   Kind
	Name   string // "Session", "Session.Query", "ClusterConfig.Hosts"
	Status Status
	Want   string // normalised declaration in the reference package
	Got    string // normalised declaration in the candidate, empty if missing
	Note   string // why a declaration differs, when not obvious from Want/Got
}

// Result is the comparison of a candidate package with a reference package.
type Result struct {
	Items  []Item
	Extras []Item // exported identifiers only the candidate declares
}

// Count returns the number of items with status s.
func (r Result) Count(s Status) int {
	n := 0
	for _, it := range r.Items {
		if it.Status == s {
			n++
		}
	}
	return n
}

// comparer compares declarations with both package paths printed as the
// same name.
type comparer struct {
	ref, cand *types.Package
	alias     string
	res       Result
}

// Compare reports every exported identifier of ref that cand lacks or
// declares differently. Types are compared structurally, with ref's and
// cand's own package paths both written as alias (e.g. "gocql").
func Compare(ref, cand *types.Package, alias string) Result {
	c := &comparer{ref: ref, cand: cand, alias: alias}
	for _, name := range ref.Scope().Names() {
		obj := ref.Scope().Lookup(name)
		if !obj.Exported() {
			continue
		}
		c.object(obj, cand.Scope().Lookup(name))
	}
	for _, name := range cand.Scope().Names() {
		obj := cand.Scope().Lookup(name)
		if obj.Exported() && ref.Scope().Lookup(name) == nil {
			c.res.Extras = append(c.res.Extras, Item{Kind: objectKind(obj), Name: name, Status: StatusOK, Got: c.decl(obj)})
		}
	}
	sort.SliceStable(c.res.Items, func(i, j int) bool { return c.res.Items[i].Name < c.res.Items[j].Name })
	sort.SliceStable(c.res.Extras, func(i, j int) bool { return c.res.Extras[i].Name < c.res.Extras[j].Name })
	return c.res
}

func objectKind(obj types.Object) Kind {
	switch obj.(type) {
	case *types.TypeName:
		return KindType
	case *types.Func:
		return KindFunc
	case *types.Const:
		return KindConst
	}
	return KindVar
}

func (c *comparer) qualifier(p *types.Package) string {
	if p == nil {
		return ""
	}
	if p.Path() == c.ref.Path() || p.Path() == c.cand.Path() {
		return c.alias
	}
	return p.Path()
}

func (c *comparer) typeString(t types.Type) string {
	return types.TypeString(t, c.qualifier)
}

// signature prints a signature without parameter names or receiver.
func (c *comparer) signature(sig *types.Signature) string {
	var sb strings.Builder
	if tp := sig.TypeParams(); tp != nil && tp.Len() > 0 {
		sb.WriteByte('[')
		for i := 0; i < tp.Len(); i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(c.typeString(tp.At(i).Constraint()))
		}
		sb.WriteByte(']')
	}
	sb.WriteByte('(')
	params := sig.Params()
	for i := 0; i < params.Len(); i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		t := params.At(i).Type()
		if sig.Variadic() && i == params.Len()-1 {
			sb.WriteString("...")
			t = t.(*types.Slice).Elem()
		}
		sb.WriteString(c.typeString(t))
	}
	sb.WriteByte(')')
	results := sig.Results()
	switch results.Len() {
	case 0:
	case 1:
		sb.WriteString(" " + c.typeString(results.At(0).Type()))
	default:
		sb.WriteString(" (")
		for i := 0; i < results.Len(); i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(c.typeString(results.At(i).Type()))
		}
		sb.WriteByte(')')
	}
	return sb.String()
}

// underlying describes a type's structure: "struct", "interface" or the
// underlying type itself.
func (c *comparer) underlying(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Struct:
		return "struct"
	case *types.Interface:
		return "interface"
	case *types.Signature:
		return "func" + c.signature(u)
	default:
		return c.typeString(u)
	}
}

func (c *comparer) decl(obj types.Object) string {
	switch o := obj.(type) {
	case *types.Const:
		return fmt.Sprintf("const %s %s = %s", o.Name(), c.typeString(o.Type()), o.Val().ExactString())
	case *types.Var:
		return fmt.Sprintf("var %s %s", o.Name(), c.typeString(o.Type()))
	case *types.Func:
		return fmt.Sprintf("func %s%s", o.Name(), c.signature(o.Type().(*types.Signature)))
	case *types.TypeName:
		if o.IsAlias() {
			return fmt.Sprintf("type %s = %s", o.Name(), c.typeString(types.Unalias(o.Type())))
		}
		return fmt.Sprintf("type %s %s", o.Name(), c.underlying(o.Type()))
	}
	return obj.String()
}

func (c *comparer) add(kind Kind, name, want, got, note string) {
	st := StatusOK
	switch {
	case got == "":
		st = StatusMissing
	case want != got || note != "":
		st = StatusDiffering
	}
	c.res.Items = append(c.res.Items, Item{Kind: kind, Name: name, Status: st, Want: want, Got: got, Note: note})
}

func (c *comparer) object(ref, cand types.Object) {
	kind := objectKind(ref)
	want := c.decl(ref)
	if cand == nil {
		c.add(kind, ref.Name(), want, "", "")
		if tn, ok := ref.(*types.TypeName); ok {
			c.members(tn, nil)
		}
		return
	}
	got := c.decl(cand)
	refType, isType := ref.(*types.TypeName)
	candType, candIsType := cand.(*types.TypeName)
	if !isType {
		c.add(kind, ref.Name(), want, got, "")
		return
	}
	if !candIsType {
		c.add(kind, ref.Name(), want, got, "compat declares it as a "+string(objectKind(cand)))
		c.members(refType, nil)
		return
	}
	// A type may be an alias in compat; compare what it denotes.
	got = fmt.Sprintf("type %s %s", cand.Name(), c.underlying(types.Unalias(candType.Type())))
	note := ""
	if tparams(refType) != tparams(candType) {
		note = fmt.Sprintf("type parameters %q vs %q", tparams(refType), tparams(candType))
	}
	if types.Comparable(refType.Type()) && !types.Comparable(types.Unalias(candType.Type())) {
		note = "gocql's type is comparable (usable with == and as a map key), compat's is not"
	}
	if want, got := c.positional(refType.Type()), c.positional(types.Unalias(candType.Type())); want != "" && want != notPositional && want != got {
		note = "positional composite literals differ: gocql's fields are " + want + ", compat's " + got
	}
	c.add(kind, ref.Name(), want, got, note)
	c.members(refType, candType)
}

// notPositional is what positional returns for a struct with unexported
// fields.
const notPositional = "(a struct with unexported fields)"

// positional returns the field names, in order, of a struct whose fields
// are all exported (so that code may write positional composite literals of
// it), and "" for any other type. Field types are compared field by field.
func (c *comparer) positional(t types.Type) string {
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	var fields []string
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Exported() {
			return notPositional
		}
		fields = append(fields, f.Name())
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

func tparams(tn *types.TypeName) string {
	named, ok := types.Unalias(tn.Type()).(*types.Named)
	if !ok || named.TypeParams() == nil {
		return ""
	}
	var parts []string
	for i := 0; i < named.TypeParams().Len(); i++ {
		parts = append(parts, named.TypeParams().At(i).Constraint().String())
	}
	return strings.Join(parts, ", ")
}

// members compares the fields, interface methods and methods of a type;
// cand is nil when the candidate lacks the type or declares something else.
func (c *comparer) members(ref, cand *types.TypeName) {
	refT := ref.Type()
	var candT types.Type
	if cand != nil {
		candT = types.Unalias(cand.Type())
	}
	switch u := refT.Underlying().(type) {
	case *types.Struct:
		var cs *types.Struct
		if candT != nil {
			cs, _ = candT.Underlying().(*types.Struct)
		}
		c.fields(ref.Name(), u, cs)
	case *types.Interface:
		var ci *types.Interface
		if candT != nil {
			ci, _ = candT.Underlying().(*types.Interface)
		}
		c.interfaceMethods(ref.Name(), u, ci)
		return // the method set of an interface is its methods
	}
	c.methods(ref.Name(), refT, candT)
}

func (c *comparer) fields(typeName string, ref, cand *types.Struct) {
	for i := 0; i < ref.NumFields(); i++ {
		f := ref.Field(i)
		if !f.Exported() {
			continue
		}
		want := c.fieldDecl(f)
		got := ""
		if cand != nil {
			for j := 0; j < cand.NumFields(); j++ {
				if g := cand.Field(j); g.Name() == f.Name() {
					got = c.fieldDecl(g)
				}
			}
		}
		c.add(KindField, typeName+"."+f.Name(), want, got, "")
	}
}

func (c *comparer) fieldDecl(f *types.Var) string {
	if f.Embedded() {
		return "embedded " + c.typeString(f.Type())
	}
	return f.Name() + " " + c.typeString(f.Type())
}

func (c *comparer) interfaceMethods(typeName string, ref, cand *types.Interface) {
	refNames := map[string]bool{}
	for i := 0; i < ref.NumMethods(); i++ {
		m := ref.Method(i)
		refNames[m.Name()] = true
		if !m.Exported() {
			continue
		}
		want := m.Name() + c.signature(m.Type().(*types.Signature))
		got := ""
		if cand != nil {
			for j := 0; j < cand.NumMethods(); j++ {
				if g := cand.Method(j); g.Name() == m.Name() {
					got = g.Name() + c.signature(g.Type().(*types.Signature))
				}
			}
		}
		c.add(KindInterface, typeName+"."+m.Name(), want, got, "")
	}
	if cand == nil {
		return
	}
	// Extra methods in compat's interface would stop types written for
	// gocql's interface from satisfying it.
	for j := 0; j < cand.NumMethods(); j++ {
		g := cand.Method(j)
		if !refNames[g.Name()] {
			c.add(KindInterface, typeName+"."+g.Name(), "", g.Name()+c.signature(g.Type().(*types.Signature)),
				"compat's interface requires a method gocql's does not")
		}
	}
}

// methods compares the exported methods callable on values and pointers of
// the type, promoted methods included.
func (c *comparer) methods(typeName string, ref, cand types.Type) {
	refPtr := types.NewMethodSet(types.NewPointer(ref))
	refVal := types.NewMethodSet(ref)
	var candPtr, candVal *types.MethodSet
	if cand != nil {
		candPtr = types.NewMethodSet(types.NewPointer(cand))
		candVal = types.NewMethodSet(cand)
	}
	for i := 0; i < refPtr.Len(); i++ {
		m := refPtr.At(i).Obj()
		if !m.Exported() {
			continue
		}
		want := m.Name() + c.signature(m.Type().(*types.Signature))
		got, note := "", ""
		if candPtr != nil {
			if sel := candPtr.Lookup(m.Pkg(), m.Name()); sel != nil {
				got = m.Name() + c.signature(sel.Obj().Type().(*types.Signature))
			} else if sel := lookupByName(candPtr, m.Name()); sel != nil {
				got = m.Name() + c.signature(sel.Obj().Type().(*types.Signature))
			}
			if got != "" && refVal.Lookup(m.Pkg(), m.Name()) != nil && lookupByName(candVal, m.Name()) == nil {
				note = "gocql declares it on the value receiver, compat only on the pointer"
			}
		}
		c.add(KindMethod, typeName+"."+m.Name(), want, got, note)
	}
	if candPtr == nil {
		return
	}
	for i := 0; i < candPtr.Len(); i++ {
		m := candPtr.At(i).Obj()
		if m.Exported() && lookupByName(refPtr, m.Name()) == nil {
			c.res.Extras = append(c.res.Extras, Item{Kind: KindMethod, Name: typeName + "." + m.Name(), Status: StatusOK,
				Got: m.Name() + c.signature(m.Type().(*types.Signature))})
		}
	}
}

func lookupByName(ms *types.MethodSet, name string) *types.Selection {
	for i := 0; i < ms.Len(); i++ {
		if ms.At(i).Obj().Name() == name {
			return ms.At(i)
		}
	}
	return nil
}
