package notify

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Render fills the hosted service's notification templates: every {{path}} in tmpl becomes
// the value at that dotted path in vars, e.g. {{message.data.text}},
// {{message.data.entities.sender.entity.name}}, {{message.data.entities.receiver.entity.name}}
// (push templates, over the event's data as webhooks carry it: {"message": {…}}), or
// {{senderDetails.name}}, {{groupDetails.name}}, {{messages.length}}, {{messages[0].message}}
// (SMS and email templates). A path steps through objects by key and through arrays by
// index ([0] or .0); length is an array's length. Spaces inside the braces are ignored.
//
// A placeholder that does not resolve to a string, number or boolean (an unknown path, a
// null, an object) becomes empty and complete is false: the caller then uses the template's
// fallback text, as the hosted service does with "Body (Fallback)". Values are inserted as
// they are, never read again as template text, and the result is plain text: the providers
// always encode it (encoding/json, form encoding), so no value can change a request's shape.
func Render(tmpl string, vars any) (text string, complete bool) {
	var b strings.Builder
	complete = true
	for {
		i := strings.Index(tmpl, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(tmpl[i+2:], "}}")
		if j < 0 {
			break // an unclosed {{ is text
		}
		b.WriteString(tmpl[:i])
		if v, ok := lookup(vars, strings.TrimSpace(tmpl[i+2:i+2+j])); ok {
			b.WriteString(v)
		} else {
			complete = false
		}
		tmpl = tmpl[i+2+j+2:]
	}
	b.WriteString(tmpl)
	return b.String(), complete
}

// ParseVars decodes JSON data (an event's data) for Render, keeping numbers as written so
// that ids and timestamps render in full.
func ParseVars(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// lookup resolves a path to text.
func lookup(v any, path string) (string, bool) {
	if path == "" {
		return "", false
	}
	for _, seg := range strings.Split(path, ".") {
		// name[0][1]: a key, then indexes.
		name, rest, _ := strings.Cut(seg, "[")
		if name != "" {
			var ok bool
			if v, ok = step(v, name); !ok {
				return "", false
			}
		} else if rest == "" {
			return "", false // an empty segment: a..b
		}
		for rest != "" {
			idx, after, ok := strings.Cut(rest, "]")
			if !ok || (after != "" && after[0] != '[') {
				return "", false
			}
			if _, err := strconv.Atoi(idx); err != nil {
				return "", false
			}
			if v, ok = step(v, idx); !ok {
				return "", false
			}
			rest = strings.TrimPrefix(after, "[")
		}
	}
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case int:
		return strconv.Itoa(x), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false // null, an object or an array
}

func step(v any, key string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		next, ok := x[key]
		return next, ok
	case []any:
		if key == "length" {
			return len(x), true
		}
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(x) {
			return nil, false
		}
		return x[i], true
	}
	return nil, false
}
