package config

import (
	"reflect"
	"testing"
)

// FuzzParse: config.toml parsing never panics, answers the same twice, and names the problem
// when it refuses (the error is never empty).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		Template, "[cockpit]\nagnet = \"llm\"", "[cockpit]\non_quit = \"explode\"",
		"[paper]\ncash = \"1e400\"\ntime_scale = -1", "[policy.global.rate_limits]\nrequests_per_minute = 5",
		"[tui.keys]\napprove = \"a\"\n", "[[cockpit]]", "a = 1\na = 2", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Parse(data, Default())
		again, err2 := Parse(data, Default())
		if (err == nil) != (err2 == nil) {
			t.Fatalf("two parses disagree: %v, %v", err, err2)
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if !reflect.DeepEqual(got, again) {
			t.Fatal("two parses of the same file differ")
		}
	})
}
