package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
	"unicode/utf8"

	"cockpit/engine/safety"
	"cockpit/engine/sandbox"
	"cockpit/engine/scan"
	"cockpit/engine/tools"
	"cockpit/live/jsonv"
)

// internalPathsCategory runs redact_internal_paths with the vectors' fixed root list.
func internalPathsCategory(e *env, v any) []outcome {
	o := obj(v)
	var roots []string
	for _, r := range asList(get(o, "roots")) {
		s, _ := r.(string)
		roots = append(roots, s)
	}
	var outs []outcome
	for i, raw := range asList(get(o, "cases")) {
		c := obj(raw)
		in := ""
		switch t := get(c, "input").(type) {
		case string:
			in = t
		case nil:
		default:
			in = show(t)
		}
		want, _ := str(c, "expected")
		out := pass()
		if got := safety.RedactInternalPaths(in, roots); got != want {
			out = failf("redacted %q, oracle %q", got, want)
		} else if again := safety.RedactInternalPaths(got, roots); again != got {
			out = failf("not idempotent: %q", again)
		}
		out.id = fmt.Sprint(i)
		outs = append(outs, out)
	}
	return outs
}

// shellSafetyCase checks the broad-Python-kill guard and the heredoc refusal (which the
// reference only reaches when the guard passed).
func shellSafetyCase(e *env, c *jsonv.Object) outcome {
	cmd, _ := str(c, "command")
	rejected := safety.BroadPythonKill(cmd)
	heredoc := !rejected && safety.HeredocRejected(cmd)
	if want, _ := get(c, "rejected").(bool); rejected != want {
		return failf("rejected = %v, oracle %v", rejected, want)
	}
	if want, _ := get(c, "bash_heredoc_rejected").(bool); heredoc != want {
		return failf("heredoc rejected = %v, oracle %v", heredoc, want)
	}
	return pass()
}

// bashEnvelopeCase runs the reference's shell command through cockpit's runner (sh -c, no
// sandbox) and compares the result envelope: status, exit code, and the decoded streams.
func bashEnvelopeCase(e *env, c *jsonv.Object) outcome {
	cmd, _ := str(c, "command")
	dir := e.root().Dir()
	env := sandbox.Run(context.Background(), sandbox.None{}, sandbox.Spec{Argv: []string{"sh", "-c", cmd}, Dir: dir, Workspace: dir,
		Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 30 * time.Second, MaxOutput: 50_000})
	if st, _ := str(c, "status"); env.Status != st {
		return failf("status %s, oracle %s (%+v)", env.Status, st, env)
	}
	if code, ok := floatOf(get(c, "exit_code")); ok && (env.ExitCode == nil || *env.ExitCode != int(code)) {
		return failf("exit code %v, oracle %v", env.ExitCode, code)
	}
	// Compare what the case gives: a case may give the stream, its length, or both.
	if out, ok := str(c, "stdout"); ok && env.Stdout != out {
		return failf("stdout %q, oracle %q", env.Stdout, out)
	}
	if n, ok := floatOf(get(c, "stdout_len")); ok && utf8.RuneCountInString(env.Stdout) != int(n) {
		return failf("stdout length %d, oracle %v", utf8.RuneCountInString(env.Stdout), n)
	}
	if errOut, ok := str(c, "stderr"); ok && env.Stderr != errOut {
		return failf("stderr %q, oracle %q", env.Stderr, errOut)
	}
	return pass()
}

// readURLCase serves the canned upstream body and reads https://example.com/page through
// cockpit's web reader (a direct fetch, not a third-party reader: the request is not
// compared). DV12: cockpit also scans and neutralises the title.
func readURLCase(e *env, c *jsonv.Object) outcome {
	status, _ := floatOf(get(c, "upstream_status"))
	body, hasBody := str(c, "upstream_body")
	if !hasBody {
		n, _ := floatOf(get(c, "upstream_body_len"))
		body = "Title: t\n\n" + strings.Repeat("a", int(n)-len("Title: t\n\n"))
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(int(status))
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	web := &tools.Web{Policy: "strict", Resolver: fixedResolver{"example.com": {"93.184.216.34"}},
		TLS: srv.Client().Transport.(*http.Transport).TLSClientConfig,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, srv.Listener.Addr().String())
		}}
	got, err := web.Read(context.Background(), "https://example.com/page")
	if err != nil {
		return failf("read: %v", err)
	}
	if msg, ok := got.Get("error"); ok {
		if s, _ := msg.(string); strings.HasSuffix(s, "\n") { // http.Error adds a newline the reference's body lacks
			got.Set("error", strings.TrimSuffix(s, "\n"))
		}
	}
	scan.WithSecurityWarnings(got, []string{"content", "title"})
	want := obj(get(c, "expected"))
	if wc, ok := get(want, "content").(*jsonv.Object); ok { // a long body: compare length and tail
		gc, _ := got.Get("content")
		s, _ := gc.(string)
		n, _ := floatOf(get(wc, "len"))
		tail, _ := str(wc, "tail")
		if utf8.RuneCountInString(s) != int(n) || !strings.HasSuffix(s, tail) {
			return failf("content of %d code points, oracle %v ending %q", utf8.RuneCountInString(s), n, tail)
		}
		got.Set("content", get(want, "content"))
	}
	if jsonv.Equal(got, want) {
		return pass()
	}
	// DV12: the title is neutralised and scanned too.
	if t, ok := str(want, "title"); ok {
		nt, _ := scan.Neutralize(t)
		if gt, _ := got.Get("title"); gt == nt {
			alt := jsonv.Clone(got).(*jsonv.Object)
			alt.Set("title", t)
			if ws, ok := alt.Get("security_warnings"); ok {
				var keep []any
				for _, f := range asList(ws) {
					if fs, _ := str(obj(f), "field"); fs != "title" {
						keep = append(keep, f)
					}
				}
				alt.Set("security_warnings", keep)
			}
			if jsonv.Equal(alt, want) {
				return deviation("DV12", "the title is neutralised and scanned as well")
			}
		}
	}
	return failf("result %s, oracle %s", show(got), show(want))
}

// fixedResolver answers from a table.
type fixedResolver map[string][]string

func (f fixedResolver) Resolve(_ context.Context, host string) ([]string, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	return nil, safety.ErrNoSuchHost
}

// systemResolver is getaddrinfo on the vectors' sandbox: numeric hosts parsed the glibc way,
// localhost from /etc/hosts, and no DNS.
type systemResolver struct{}

func (systemResolver) Resolve(_ context.Context, host string) ([]string, error) {
	if a, ok := safety.NumericHost(host); ok {
		return []string{a.String()}, nil
	}
	if host == "localhost" {
		return []string{"127.0.0.1"}, nil
	}
	return nil, safety.ErrNoSuchHost
}

// caseResolver is a case's resolver: "system", or {"fake": [addresses] | "NXDOMAIN"}.
func caseResolver(v any) safety.Resolver {
	o, ok := v.(*jsonv.Object)
	if !ok {
		return systemResolver{}
	}
	switch f := get(o, "fake").(type) {
	case string:
		return fixedResolver{}
	case []any:
		var addrs []string
		for _, a := range f {
			s, _ := a.(string)
			addrs = append(addrs, s)
		}
		return anyResolver(addrs)
	}
	return systemResolver{}
}

// anyResolver answers every name with the same addresses (the fake resolver of one case).
type anyResolver []string

func (a anyResolver) Resolve(context.Context, string) ([]string, error) {
	if a == nil {
		return []string{}, nil
	}
	return a, nil
}

func validateURLCase(e *env, c *jsonv.Object) outcome {
	u, _ := str(c, "url")
	loop, _ := get(c, "allow_loopback").(bool)
	ok, why := safety.ValidateURLTarget(context.Background(), u, loop, caseResolver(get(c, "resolver")))
	wantOK, _ := get(c, "ok").(bool)
	wantErr, _ := str(c, "error")
	if ok != wantOK || why != wantErr {
		return failf("(%v, %q), oracle (%v, %q)", ok, why, wantOK, wantErr)
	}
	return pass()
}

func webReaderURLCase(e *env, c *jsonv.Object) outcome {
	u, _ := str(c, "url")
	wantOK, _ := get(c, "ok").(bool)
	if got := safety.WebReaderAllowed(u); got != wantOK {
		return failf("allowed = %v, oracle %v", got, wantOK)
	}
	return pass()
}

func ipClassCase(e *env, c *jsonv.Object) outcome {
	s, _ := str(c, "ip")
	a, err := safety.ParseIP(s)
	if err != nil {
		return failf("%v", err)
	}
	k := safety.Classify(a)
	got := map[string]bool{"is_global": k.Global, "is_private": k.Private, "is_loopback": k.Loopback, "is_link_local": k.LinkLocal,
		"is_multicast": k.Multicast, "is_reserved": k.Reserved, "is_unspecified": k.Unspecified,
		"channels_blocked":   !k.Global || k.Multicast,
		"web_reader_blocked": k.Private || k.Loopback || k.LinkLocal || k.Multicast || k.Reserved || k.Unspecified || !k.Global}
	for key, v := range got {
		if want, ok := get(c, key).(bool); ok && want != v {
			return failf("%s = %v, oracle %v", key, v, want)
		}
	}
	return pass()
}

// mcpHostCategory runs the three host-guard tables.
func mcpHostCategory(e *env, v any) []outcome {
	o := obj(v)
	var outs []outcome
	add := func(id string, ok bool, why string) {
		out := pass()
		if !ok {
			out = failf("%s", why)
		}
		out.id = id
		outs = append(outs, out)
	}
	for i, raw := range asList(get(o, "normalize_host")) {
		c := obj(raw)
		in, _ := str(c, "input")
		want, _ := str(c, "expected")
		got := safety.NormalizeHost(in)
		add(fmt.Sprintf("normalize_host[%d]", i), got == want, fmt.Sprintf("%q → %q, oracle %q", in, got, want))
	}
	for i, raw := range asList(get(o, "parse_allowed_hosts")) {
		c := obj(raw)
		in, _ := str(c, "input")
		var want []string
		for _, x := range asList(get(c, "expected")) {
			s, _ := x.(string)
			want = append(want, s)
		}
		got := safety.ParseAllowedHosts(in)
		add(fmt.Sprintf("parse_allowed_hosts[%d]", i), strings.Join(got, "|") == strings.Join(want, "|"), fmt.Sprintf("%q → %v, oracle %v", in, got, want))
	}
	for i, raw := range asList(get(o, "origin_allowed")) {
		c := obj(raw)
		var origin *string
		if s, ok := str(c, "origin"); ok {
			origin = &s
		}
		var hosts []string
		for _, x := range asList(get(c, "allowed_hosts")) {
			s, _ := x.(string)
			hosts = append(hosts, s)
		}
		want, _ := get(c, "expected").(bool)
		got := safety.OriginAllowed(origin, hosts)
		add(fmt.Sprintf("origin_allowed[%d]", i), got == want, fmt.Sprintf("%v with %v → %v, oracle %v", origin, hosts, got, want))
	}
	return outs
}
