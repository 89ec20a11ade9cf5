package atomicfile

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkReplace times Replace over an existing file against the plain rename over it that
// Replace used before (on ext4 the rename starts the new file's disk write at once).
func BenchmarkReplace(b *testing.B) {
	p := filepath.Join(b.TempDir(), "trade_counter.json")
	content := func(i int) []byte { return []byte(`{"date": "2026-12-03", "count": ` + strconv.Itoa(i) + `}`) }
	if err := os.WriteFile(p, content(0), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("swap", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := Replace(p, content(i), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rename", func(b *testing.B) {
		tmp := p + ".tmp"
		for i := 0; b.Loop(); i++ {
			if err := os.WriteFile(tmp, content(i), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.Rename(tmp, p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
