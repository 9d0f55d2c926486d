package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"
)

// CheckExamples validates every example in the spec against the schema it illustrates:
// the example and examples of each media type (request bodies and responses), parameter and
// header, and the example and examples of each schema, in the paths and in the components.
// It returns how many examples it checked, and an error listing each one that does not match,
// by where it is, or nil.
func (s *Spec) CheckExamples() (checked int, err error) {
	c := &exampleChecker{spec: s, seen: map[*yaml.Node]bool{}}
	m := s.model
	if comp := m.Components; comp != nil {
		for name, sp := range comp.Schemas.FromOldest() {
			c.schema("components.schemas."+name, sp, true)
		}
		for name, r := range comp.Responses.FromOldest() {
			c.response("components.responses."+name, r)
		}
		for name, rb := range comp.RequestBodies.FromOldest() {
			c.content("components.requestBodies."+name, rb.Content)
		}
		for name, p := range comp.Parameters.FromOldest() {
			c.parameter("components.parameters."+name, p)
		}
		for name, h := range comp.Headers.FromOldest() {
			c.header("components.headers."+name, h)
		}
	}
	if m.Paths != nil {
		for path, item := range m.Paths.PathItems.FromOldest() {
			where := "paths." + path
			c.parameters(where+".parameters", item.Parameters)
			for method, op := range item.GetOperations().FromOldest() {
				where := where + "." + method
				c.parameters(where+".parameters", op.Parameters)
				if op.RequestBody != nil {
					c.content(where+".requestBody", op.RequestBody.Content)
				}
				if op.Responses != nil {
					for code, r := range op.Responses.Codes.FromOldest() {
						c.response(where+".responses."+code, r)
					}
					c.response(where+".responses.default", op.Responses.Default)
				}
			}
		}
	}
	return c.checked, errors.Join(c.errs...)
}

// exampleChecker walks the model; an example reached twice (a component, then an operation's
// $ref to it) is checked once, and named by its first place.
type exampleChecker struct {
	spec    *Spec
	seen    map[*yaml.Node]bool
	checked int
	errs    []error
}

func (c *exampleChecker) parameters(where string, ps []*v3.Parameter) {
	for _, p := range ps {
		c.parameter(where+"."+p.Name, p)
	}
}

func (c *exampleChecker) parameter(where string, p *v3.Parameter) {
	if p != nil {
		c.described(where, p.Schema, p.Example, p.Examples, p.Content)
	}
}

func (c *exampleChecker) header(where string, h *v3.Header) {
	if h != nil {
		c.described(where, h.Schema, h.Example, h.Examples, h.Content)
	}
}

func (c *exampleChecker) response(where string, r *v3.Response) {
	if r == nil {
		return
	}
	for name, h := range r.Headers.FromOldest() {
		c.header(where+".headers."+name, h)
	}
	c.content(where, r.Content)
}

// described checks what a parameter or a header holds: its examples, its schema's and its
// content's.
func (c *exampleChecker) described(where string, sp *base.SchemaProxy, example *yaml.Node, named *orderedmap.Map[string, *base.Example], content *orderedmap.Map[string, *v3.MediaType]) {
	c.examples(where, sp, example, named)
	c.schema(where+".schema", sp, false)
	c.content(where, content)
}

func (c *exampleChecker) content(where string, content *orderedmap.Map[string, *v3.MediaType]) {
	for mt, media := range content.FromOldest() {
		where := where + ".content." + mt
		c.examples(where, media.Schema, media.Example, media.Examples)
		c.schema(where+".schema", media.Schema, false)
	}
}

// examples checks an object's example and its named examples against sp.
func (c *exampleChecker) examples(where string, sp *base.SchemaProxy, example *yaml.Node, named *orderedmap.Map[string, *base.Example]) {
	c.check(where+".example", sp, example)
	for name, ex := range named.FromOldest() {
		if ex != nil {
			c.check(where+".examples."+name, sp, ex.Value)
		}
	}
}

// schema checks the examples of the schema sp and of the subschemas written inside it. A
// subschema that is a $ref is not followed: the component it names is checked on its own, and
// the recursive schemas (a message entity holds a message) end there. top says whether sp is
// a component, checked even though a reference may lead to it too.
func (c *exampleChecker) schema(where string, sp *base.SchemaProxy, top bool) {
	if sp == nil || (!top && sp.IsReference()) {
		return
	}
	sc := sp.Schema()
	if sc == nil {
		return
	}
	c.check(where+".example", sp, sc.Example)
	for i, ex := range sc.Examples {
		c.check(fmt.Sprintf("%s.examples[%d]", where, i), sp, ex)
	}
	for i, sub := range sc.AllOf {
		c.schema(fmt.Sprintf("%s.allOf[%d]", where, i), sub, false)
	}
	for i, sub := range sc.OneOf {
		c.schema(fmt.Sprintf("%s.oneOf[%d]", where, i), sub, false)
	}
	for i, sub := range sc.AnyOf {
		c.schema(fmt.Sprintf("%s.anyOf[%d]", where, i), sub, false)
	}
	for i, sub := range sc.PrefixItems {
		c.schema(fmt.Sprintf("%s.prefixItems[%d]", where, i), sub, false)
	}
	for name, sub := range sc.Properties.FromOldest() {
		c.schema(where+".properties."+name, sub, false)
	}
	for name, sub := range sc.PatternProperties.FromOldest() {
		c.schema(where+".patternProperties."+name, sub, false)
	}
	for name, sub := range sc.DependentSchemas.FromOldest() {
		c.schema(where+".dependentSchemas."+name, sub, false)
	}
	for name, sub := range sc.Defs.FromOldest() {
		c.schema(where+".$defs."+name, sub, false)
	}
	c.schema(where+".not", sc.Not, false)
	c.schema(where+".if", sc.If, false)
	c.schema(where+".then", sc.Then, false)
	c.schema(where+".else", sc.Else, false)
	c.schema(where+".contains", sc.Contains, false)
	c.schema(where+".propertyNames", sc.PropertyNames, false)
	c.schema(where+".unevaluatedItems", sc.UnevaluatedItems, false)
	for _, dv := range []struct {
		kw string
		v  *base.DynamicValue[*base.SchemaProxy, bool]
	}{{"items", sc.Items}, {"additionalProperties", sc.AdditionalProperties}, {"unevaluatedProperties", sc.UnevaluatedProperties}} {
		if dv.v != nil && dv.v.IsA() {
			c.schema(where+"."+dv.kw, dv.v.A, false)
		}
	}
}

// check validates one example value against sp.
func (c *exampleChecker) check(where string, sp *base.SchemaProxy, value *yaml.Node) {
	if value == nil || c.seen[value] {
		return
	}
	c.seen[value] = true
	c.checked++
	fail := func(format string, args ...any) {
		c.errs = append(c.errs, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...)))
	}
	if sp == nil || sp.Schema() == nil {
		fail("an example without a schema to check it against")
		return
	}
	var v any
	if err := value.Decode(&v); err != nil {
		fail("decode: %v", err)
		return
	}
	payload, err := json.Marshal(v)
	if err != nil {
		fail("not JSON: %v", err)
		return
	}
	c.spec.schemasMu.Lock()
	ok, verrs := c.spec.schemas.ValidateSchemaBytesWithVersion(sp.Schema(), payload, 3.1)
	c.spec.schemasMu.Unlock()
	if !ok {
		msgs := make([]string, len(verrs))
		for i, e := range verrs {
			msgs[i] = describe(e)
		}
		fail("does not match its schema:\n  - %s", strings.Join(msgs, "\n  - "))
	}
}
