package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// setUp is the README's "Set up" block: the two commands the project requires, one that starts
// the cockpit on its embedded defaults and one that runs the whole test suite.
var setUp = []string{"go run ./cmd/cockpit", "go test ./..."}

// TestReadmeSetUp: the README's Set up block holds exactly the two set-up commands, and CI
// (.ci/run) runs the same test command.
func TestReadmeSetUp(t *testing.T) {
	readme := readFile(t, filepath.Join("..", "README.md"))
	got, ok := setUpCommands(readme)
	if !ok {
		t.Fatalf("README.md has no \"## Set up\" section with a sh block")
	}
	if strings.Join(got, "\n") != strings.Join(setUp, "\n") {
		t.Errorf("README's Set up commands = %q, want %q", got, setUp)
	}
	ci := readFile(t, filepath.Join("..", ".ci", "run"))
	if !regexp.MustCompile(`(?m)^go test \./\.\.\.\s*$`).MatchString(ci) {
		t.Errorf(".ci/run does not run %q on a line of its own", setUp[1])
	}
}

// TestSetUpCommandsRead: the block reader finds the commands without their comments, and
// sees a block that gained or lost one.
func TestSetUpCommandsRead(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       string
		ok         bool
	}{
		{"two", "# x\n\n## Set up\n\n```sh\ngo run ./cmd/cockpit   # a\ngo test ./...   # b\n```\n", "go run ./cmd/cockpit|go test ./...", true},
		{"three", "## Set up\n\n```sh\ngo build\ngo run ./cmd/cockpit\ngo test ./...\n```\n", "go build|go run ./cmd/cockpit|go test ./...", true},
		{"none", "## Install\n\n```sh\ngo test ./...\n```\n", "", false},
	} {
		got, ok := setUpCommands(tc.text)
		if ok != tc.ok || strings.Join(got, "|") != tc.want {
			t.Errorf("%s: got %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// setUpCommands returns the commands of the first code block under "## Set up", comments cut.
func setUpCommands(readme string) ([]string, bool) {
	_, after, found := strings.Cut("\n"+readme, "\n## Set up\n")
	if !found {
		return nil, false
	}
	if next := strings.Index(after, "\n## "); next >= 0 {
		after = after[:next]
	}
	_, block, found := strings.Cut(after, "```sh\n")
	if !found {
		return nil, false
	}
	block, _, _ = strings.Cut(block, "```")
	var out []string
	for _, line := range strings.Split(block, "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		if cmd = strings.TrimSpace(cmd); cmd != "" {
			out = append(out, cmd)
		}
	}
	return out, true
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
