package live

import (
	"embed"
	"fmt"
	"path"
	"sort"
	"sync"
)

// profileFiles are the profiles cockpit ships, one TOML file each (docs/broker-profiles.md).
//
//go:embed profiles/*.toml
var profileFiles embed.FS

// EmbeddedProfile returns the text of a shipped profile file by name, or false.
func EmbeddedProfile(name string) ([]byte, bool) {
	b, err := profileFiles.ReadFile(path.Join("profiles", name+".toml"))
	return b, err == nil
}

// embeddedProfiles parses every shipped profile; a shipped file that does not parse, or whose
// name differs from its file's, is a build defect and panics on first use (a test runs it).
func embeddedProfiles() map[string]*Profile {
	entries, err := profileFiles.ReadDir("profiles")
	if err != nil {
		panic(err)
	}
	out := make(map[string]*Profile, len(entries))
	for _, e := range entries {
		b, err := profileFiles.ReadFile(path.Join("profiles", e.Name()))
		if err != nil {
			panic(err)
		}
		p, err := ParseProfile(b)
		if err != nil {
			panic(fmt.Sprintf("shipped profile %s: %v", e.Name(), err))
		}
		if want := e.Name()[:len(e.Name())-len(".toml")]; p.Name != want {
			panic(fmt.Sprintf("shipped profile %s: name = %q, want %q", e.Name(), p.Name, want))
		}
		out[p.Name] = p
	}
	return out
}

// shipped are the parsed shipped profiles, parsed once on first use (not at start-up: most
// commands never read a profile); every caller gets the same map and the same *Profile values.
var shipped = sync.OnceValue(embeddedProfiles)

// ProfileNames lists the shipped profiles' names, sorted.
func ProfileNames() []string {
	names := make([]string, 0, len(shipped()))
	for n := range shipped() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
