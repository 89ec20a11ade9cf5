package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// outcome is the result of one case.
type outcome struct {
	id      string
	ok      bool
	dv      string // the deviation rule that explains a difference, when ok and different
	why     string // what differed
	pending string // set when the case needs a feature that has not landed
}

func pass() outcome { return outcome{ok: true} }

func failf(format string, args ...any) outcome {
	return outcome{why: clip(fmt.Sprintf(format, args...))}
}

func deviation(dv, format string, args ...any) outcome {
	return outcome{ok: true, dv: dv, why: clip(fmt.Sprintf(format, args...))}
}

// maxWhy is how many characters of a diagnostic the runner prints; a 50,000-character
// stream in a failure message helps nobody.
const maxWhy = 400

// clip cuts a diagnostic to maxWhy characters and says how much was left out.
func clip(s string) string {
	r := []rune(s)
	if len(r) <= maxWhy {
		return s
	}
	return fmt.Sprintf("%s… (%d more characters)", string(r[:maxWhy]), len(r)-maxWhy)
}

// category binds a JSON path of a vectors file to what the runner does with it.
type category struct {
	file    string
	path    string
	each    func(e *env, c *jsonv.Object) outcome // per case of a case list
	whole   func(e *env, v any) []outcome         // for object-shaped categories
	pending string                                // "issue N": not landed yet
	skipped string                                // reason cockpit has no counterpart
	data    bool                                  // inputs of another category, not cases
}

// env carries what handlers share.
type env struct {
	now   time.Time // the vectors' pinned clock
	tmp   string    // a scratch directory, removed at the end
	seq   int
	paths *pathsFixture // the path vectors' tree, built once
}

// root returns a fresh runtime root for one case.
func (e *env) root() live.Root {
	e.seq++
	dir := filepath.Join(e.tmp, fmt.Sprintf("case%04d", e.seq))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		panic(err)
	}
	r, err := live.NewRoot(dir)
	if err != nil {
		panic(err)
	}
	return r
}

// Summary totals a run.
type Summary struct {
	Passed     int // including DV-tagged deviations
	Failed     int
	Deviations int
}

// Run executes every category found in dir and writes the report to w.
func Run(dir string, w io.Writer, verbose bool) (Summary, error) {
	var sum Summary
	tmp, err := os.MkdirTemp("", "cockpit-conformance-")
	if err != nil {
		return sum, err
	}
	defer os.RemoveAll(tmp)
	e := &env{now: time.Date(2026, 6, 1, 15, 0, 0, 0, time.UTC), tmp: tmp}
	found := 0
	for _, file := range []string{"live.json", "security.json"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return sum, err
		}
		found++
		doc, err := jsonv.Parse(data, jsonv.Options{NonFinite: true})
		if err != nil {
			return sum, fmt.Errorf("%s: %w", file, err)
		}
		top, ok := doc.(*jsonv.Object)
		if !ok {
			return sum, fmt.Errorf("%s: not a JSON object", file)
		}
		runFile(e, file, top, w, verbose, &sum)
	}
	if found == 0 {
		return sum, fmt.Errorf("no live.json or security.json in %s", dir)
	}
	fmt.Fprintf(w, "deviations (DV-tagged, counted as passed): %d\n", sum.Deviations)
	fmt.Fprintf(w, "conformance: %d passed, %d failed\n", sum.Passed, sum.Failed)
	return sum, nil
}

func runFile(e *env, file string, top *jsonv.Object, w io.Writer, verbose bool, sum *Summary) {
	handled := map[string]bool{}
	for _, c := range categories {
		if c.file != file {
			continue
		}
		v, ok := lookup(top, c.path)
		if !ok {
			continue
		}
		handled[c.path] = true
		runCategory(e, c, v, w, verbose, sum)
	}
	// Anything else that looks like a case list is reported, never dropped silently.
	for _, p := range caseLists(top, "") {
		if !coveredBy(p, handled) {
			fmt.Fprintf(w, "%s: skipped (not a category this runner knows)\n", p)
		}
	}
}

func runCategory(e *env, c category, v any, w io.Writer, verbose bool, sum *Summary) {
	n := countCases(v)
	switch {
	case c.data:
		return
	case c.skipped != "":
		fmt.Fprintf(w, "%s: skipped (%s), %d cases\n", c.path, c.skipped, n)
		return
	case c.pending != "":
		fmt.Fprintf(w, "%s: pending (%s), %d cases\n", c.path, c.pending, n)
		return
	}
	var outs []outcome
	if c.whole != nil {
		outs = c.whole(e, v)
	} else {
		list, _ := v.([]any)
		for i, raw := range list {
			cs, ok := raw.(*jsonv.Object)
			if !ok {
				outs = append(outs, outcome{id: fmt.Sprint(i), why: "case is not an object"})
				continue
			}
			o := runCase(e, c, cs)
			if o.id == "" {
				o.id = caseID(cs, i)
			}
			outs = append(outs, o)
		}
	}
	passed, failed, pending := 0, 0, 0
	dvs := map[string]int{}
	for _, o := range outs {
		switch {
		case o.pending != "":
			pending++
		case !o.ok:
			failed++
		case o.dv != "":
			dvs[o.dv]++
			passed++
		default:
			passed++
		}
	}
	devs := 0
	for _, n := range dvs {
		devs += n
	}
	line := fmt.Sprintf("%s: %d passed, %d failed, %d deviations", c.path, passed-devs, failed, devs)
	if devs > 0 {
		line += " (" + dvSummary(dvs) + ")"
	}
	if pending > 0 {
		line += fmt.Sprintf(", %d pending (%s)", pending, firstPending(outs))
	}
	fmt.Fprintln(w, line)
	for _, o := range outs {
		if !o.ok && o.pending == "" {
			fmt.Fprintf(w, "  FAIL %s: %s\n", o.id, clip(o.why))
		} else if verbose && o.dv != "" {
			fmt.Fprintf(w, "  %s %s: %s\n", o.dv, o.id, clip(o.why))
		}
	}
	sum.Passed += passed
	sum.Failed += failed
	sum.Deviations += devs
}

// runCase runs one case and turns a panic into a failure, so one bad case cannot hide the rest.
func runCase(e *env, c category, cs *jsonv.Object) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = failf("panic: %v", r)
		}
	}()
	return c.each(e, cs)
}

func firstPending(outs []outcome) string {
	for _, o := range outs {
		if o.pending != "" {
			return o.pending
		}
	}
	return ""
}

func dvSummary(dvs map[string]int) string {
	keys := make([]string, 0, len(dvs))
	for k := range dvs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return len(keys[i]) < len(keys[j]) || (len(keys[i]) == len(keys[j]) && keys[i] < keys[j])
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, dvs[k])
	}
	return strings.Join(parts, ", ")
}

func caseID(c *jsonv.Object, i int) string {
	for _, k := range []string{"id", "key", "input", "expires_at", "url", "command"} {
		if s, ok := str(c, k); ok && s != "" {
			if len(s) > 60 {
				s = s[:60] + "…"
			}
			return fmt.Sprintf("#%d %q", i, s)
		}
	}
	return fmt.Sprintf("#%d", i)
}

func countCases(v any) int {
	switch t := v.(type) {
	case []any:
		return len(t)
	case *jsonv.Object:
		n := 0
		for _, m := range t.Members() {
			if l, ok := m.Value.([]any); ok && isCaseList(l) {
				n += len(l)
			}
		}
		if n == 0 {
			return 1
		}
		return n
	}
	return 0
}

// lookup follows a dotted path.
func lookup(o *jsonv.Object, path string) (any, bool) {
	var cur any = o
	for _, part := range strings.Split(path, ".") {
		obj, ok := cur.(*jsonv.Object)
		if !ok {
			return nil, false
		}
		if cur, ok = obj.Get(part); !ok {
			return nil, false
		}
	}
	return cur, true
}

// caseLists finds every list of objects under o.
func caseLists(o *jsonv.Object, prefix string) []string {
	var out []string
	for _, m := range o.Members() {
		p := m.Key
		if prefix != "" {
			p = prefix + "." + m.Key
		}
		switch t := m.Value.(type) {
		case []any:
			if isCaseList(t) {
				out = append(out, p)
			}
		case *jsonv.Object:
			out = append(out, caseLists(t, p)...)
		}
	}
	return out
}

func isCaseList(l []any) bool {
	if len(l) == 0 {
		return false
	}
	_, ok := l[0].(*jsonv.Object)
	return ok
}

func coveredBy(p string, handled map[string]bool) bool {
	for h := range handled {
		if p == h || strings.HasPrefix(p, h+".") {
			return true
		}
	}
	return false
}

// ---- small JSON helpers

func str(o *jsonv.Object, key string) (string, bool) {
	v, ok := o.Get(key)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

func get(o *jsonv.Object, key string) any {
	v, _ := o.Get(key)
	return v
}

func obj(v any) *jsonv.Object {
	o, _ := v.(*jsonv.Object)
	return o
}

// floatOf reads a vector number ({"$float"} objects included).
func floatOf(v any) (float64, bool) {
	return jsonv.ToFloat(live.DecodeFloats(v))
}

// sameNumber compares an oracle float with an exact amount: infinities by sign, finite values
// to a relative 1e-9 (the oracle computes in binary floating point; cockpit in decimal).
func sameNumber(expected any, got money.Amount) bool {
	f, ok := floatOf(expected)
	if !ok {
		return false
	}
	g := got.Float64()
	if math.IsInf(f, 0) || math.IsInf(g, 0) {
		return f == g
	}
	return math.Abs(f-g) <= 1e-9*math.Max(1, math.Max(math.Abs(f), math.Abs(g)))
}

func show(v any) string {
	s, err := jsonv.MarshalString(v, jsonv.Compact)
	if err != nil {
		s, _ = jsonv.MarshalString(v, jsonv.Python)
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// unquoteRepr reverses the simple Python str repr the halt vectors use as keys ('robinhood').
func unquoteRepr(s string) (string, bool) {
	if len(s) < 2 || (s[0] != '\'' && s[0] != '"') || s[len(s)-1] != s[0] {
		return "", false
	}
	body := s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' && i+1 < len(body) {
			i++
		}
		b.WriteByte(body[i])
	}
	return b.String(), true
}
