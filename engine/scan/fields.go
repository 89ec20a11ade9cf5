package scan

import (
	"strconv"
	"strings"

	"cockpit/live/jsonv"
)

// FindingJSON renders a finding in the reference's key order: type, rule_id, severity,
// message, match, and field when there is one.
func FindingJSON(f Finding) *jsonv.Object {
	o := jsonv.ObjectOf("type", "prompt_injection", "rule_id", f.RuleID, "severity", f.Severity, "message", f.Message, "match", f.Match)
	if f.InField {
		o.Set("field", f.Field)
	}
	return o
}

// WithSecurityWarnings scans and neutralises the string fields a selector names, in place:
// selectors split on "." (no escaping); "*" iterates a list (and selects nothing in an
// object); every other component, numerals included, is an object key. Each selected string
// is scanned before it is neutralised. When anything was found, the findings are appended
// to an existing security_warnings list (a non-list is replaced); otherwise the key is left
// alone. It returns the findings and the payload.
func WithSecurityWarnings(payload *jsonv.Object, fields []string) ([]Finding, *jsonv.Object) {
	return attach(payload, func(fn leafFunc) {
		for _, sel := range fields {
			visit(payload, strings.Split(sel, "."), nil, fn)
		}
	})
}

// WithSecurityWarningsAll is WithSecurityWarnings over every string in the payload, at any
// depth, object keys aside (a tool whose whole result is outside content, such as a broker
// server's read); an existing security_warnings value is not rescanned.
func WithSecurityWarningsAll(payload *jsonv.Object) ([]Finding, *jsonv.Object) {
	return attach(payload, func(fn leafFunc) {
		if payload == nil {
			return
		}
		for _, k := range payload.Keys() {
			if k == "security_warnings" {
				continue
			}
			key := k
			v, _ := payload.Get(key)
			visitAll(v, []string{key}, func(s string) { payload.Set(key, s) }, fn)
		}
	})
}

// leafFunc is called on a selected string with its path and a setter into its container.
type leafFunc func(path []string, v string, set func(string))

// attach scans and neutralises the strings walk selects and appends the findings to the
// payload's security_warnings.
func attach(payload *jsonv.Object, walk func(leafFunc)) ([]Finding, *jsonv.Object) {
	var all []Finding
	walk(func(path []string, v string, set func(string)) {
		for _, f := range Scan(v) {
			f.Field, f.InField = strings.Join(path, "."), true
			all = append(all, f)
		}
		if out, changed := Neutralize(v); changed {
			set(out)
		}
	})
	if len(all) == 0 || payload == nil {
		return all, payload
	}
	var list []any
	if old, ok := payload.Get("security_warnings"); ok {
		if l, isList := old.([]any); isList {
			list = append(list, l...)
		}
	}
	for _, f := range all {
		list = append(list, FindingJSON(f))
	}
	payload.Set("security_warnings", list)
	return all, payload
}

// visit walks the selector, calling fn on every string leaf it reaches with a setter that
// writes back into the parent container.
func visit(node any, parts, path []string, fn func(path []string, v string, set func(string))) {
	if len(parts) == 0 {
		return
	}
	head, rest := parts[0], parts[1:]
	switch n := node.(type) {
	case *jsonv.Object:
		if head == "*" || n == nil {
			return
		}
		child, ok := n.Get(head)
		if !ok {
			return
		}
		p := append(append([]string(nil), path...), head)
		if len(rest) == 0 {
			if s, isStr := child.(string); isStr {
				fn(p, s, func(v string) { n.Set(head, v) })
			}
			return
		}
		visit(child, rest, p, fn)
	case []any:
		if head != "*" {
			return
		}
		for i := range n {
			p := append(append([]string(nil), path...), strconv.Itoa(i))
			if len(rest) == 0 {
				if s, isStr := n[i].(string); isStr {
					idx := i
					fn(p, s, func(v string) { n[idx] = v })
				}
				continue
			}
			visit(n[i], rest, p, fn)
		}
	}
}

// visitAll calls fn on every string under node (node itself included, through set).
func visitAll(node any, path []string, set func(string), fn leafFunc) {
	switch n := node.(type) {
	case string:
		fn(path, n, set)
	case *jsonv.Object:
		if n == nil {
			return
		}
		for _, k := range n.Keys() {
			key := k
			v, _ := n.Get(key)
			visitAll(v, append(append([]string(nil), path...), key), func(s string) { n.Set(key, s) }, fn)
		}
	case []any:
		for i := range n {
			idx := i
			visitAll(n[i], append(append([]string(nil), path...), strconv.Itoa(i)), func(s string) { n[idx] = s }, fn)
		}
	}
}
