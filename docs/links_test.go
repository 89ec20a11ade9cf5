// Package docs holds no code: its tests keep the README and the pages under docs/ honest.
package docs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// pages are the Markdown files whose links are checked: the README and every page here.
func pages(t *testing.T) []string {
	t.Helper()
	list, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join("..", "README.md")}, list...)
}

// TestRelativeLinksResolve: every relative link in README.md and docs/*.md names a file that
// exists, and a link to a heading (#anchor) names a heading that exists in that file.
func TestRelativeLinksResolve(t *testing.T) {
	files := pages(t)
	if len(files) < 2 {
		t.Fatalf("found %d pages, want README.md and docs/*.md", len(files))
	}
	for _, f := range files {
		for _, p := range brokenLinks(f) {
			t.Errorf("%s", p)
		}
	}
}

// TestBrokenLinksAreFound: the checker reports a missing file, a missing heading and a
// missing heading of the page itself, and passes good links, outside links and code.
func TestBrokenLinksAreFound(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("other.md", "# Other page\n\n## Run it, as a service (v2)\n")
	page := write("page.md", strings.Join([]string{
		"# Page",
		"[ok](other.md) [ok anchor](other.md#run-it-as-a-service-v2) [self](#page)",
		"[web](https://example.com/x.md) `[code](nothere.md)`",
		"```",
		"[fenced](nothere.md)",
		"```",
		"[gone](missing.md) [bad anchor](other.md#nope) [bad self](#nope-here)",
	}, "\n"))
	got := brokenLinks(page)
	want := []string{"missing.md", "other.md#nope", "#nope-here"}
	if len(got) != len(want) {
		t.Fatalf("got %d problems %q, want %d naming %q", len(got), got, len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("problem %d = %q, want it to name %q", i, got[i], w)
		}
	}
}

var (
	linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeRE = regexp.MustCompile("`[^`]*`")
)

// brokenLinks returns one line per relative link in file that does not resolve.
func brokenLinks(file string) []string {
	lines, err := readLines(file)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	inFence := false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(codeRE.ReplaceAllString(line, ""), -1) {
			if why := checkLink(file, m[1]); why != "" {
				out = append(out, fmt.Sprintf("%s:%d: link %q: %s", file, i+1, m[1], why))
			}
		}
	}
	return out
}

// checkLink says why a link from file does not resolve, "" when it does or is not relative.
func checkLink(file, link string) string {
	if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
		return ""
	}
	path, anchor, _ := strings.Cut(link, "#")
	target := file
	if path != "" {
		target = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
		if _, err := os.Stat(target); err != nil {
			return "no such file " + target
		}
	}
	if anchor == "" || !strings.HasSuffix(target, ".md") {
		return ""
	}
	heads, err := headingAnchors(target)
	if err != nil {
		return err.Error()
	}
	if !slices.Contains(heads, anchor) {
		return fmt.Sprintf("%s has no heading #%s", target, anchor)
	}
	return ""
}

// headingAnchors lists the anchors GitHub makes of a Markdown file's headings.
func headingAnchors(file string) ([]string, error) {
	lines, err := readLines(file)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]int{}
	inFence := false
	for _, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		a := slug(strings.TrimLeft(line, "#"))
		if n := seen[a]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out, nil
}

// slug is GitHub's anchor of a heading: lower case, letters, digits, '-' and '_' kept, spaces
// made '-', everything else dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(unicode.ToLower(r))
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

func readLines(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}
