package redact

import (
	"math/rand"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// longTexts returns texts of at least textScratchMin bytes: every combination of a bearer
// token, a key=value credential and a bare token in filler (so each of Text's passes
// changes the text or not), and random differential-test texts.
func longTexts(rng *rand.Rand) []string {
	var out []string
	inserts := []string{"Bearer abc.def ", "password=hunter2 ", "sk-aaaaaaaaaaaaaaaaaaaaaaaa "}
	for mask := 0; mask < 8; mask++ {
		var b strings.Builder
		for b.Len() < textScratchMin+100 {
			b.WriteString("lorem ipsum dolor ")
			for k, ins := range inserts {
				if mask&(1<<k) != 0 && rng.Intn(20) == 0 {
					b.WriteString(ins)
				}
			}
		}
		for k, ins := range inserts { // at least once each, at the end too
			if mask&(1<<k) != 0 {
				b.WriteString(ins)
			}
		}
		out = append(out, b.String())
	}
	for n := 0; n < 40; n++ {
		var b strings.Builder
		for b.Len() < textScratchMin+rng.Intn(textScratchMin) {
			b.WriteString(randomText(rng, 40))
		}
		out = append(out, b.String())
	}
	return out
}

// TestLongTextMatchesOld: Text on texts long enough for its scratch buffers agrees with the
// pre-issue-15 implementation, and a result stays as it was while later calls, here and
// in other goroutines, reuse the buffers (a result aliasing one would change).
func TestLongTextMatchesOld(t *testing.T) {
	rng := rand.New(rand.NewSource(18))
	texts := longTexts(rng)
	want := make([]string, len(texts))
	for i, s := range texts {
		want[i] = v0Text(s)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			got := make([]string, len(texts))
			for round := 0; round < 3; round++ {
				for i := range texts {
					k := (i + g*7) % len(texts)
					got[k] = Text(texts[k])
				}
				for k := range texts {
					if got[k] != want[k] {
						t.Errorf("goroutine %d, text %d (%d bytes): Text differs from v0Text", g, k, len(texts[k]))
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
}

// TestLongTextUnchangedIsInput: a long text no pass changes comes back as itself.
func TestLongTextUnchangedIsInput(t *testing.T) {
	s := strings.Repeat("lorem ipsum dolor ", textScratchMin/10)
	if r := Text(s); r != s || unsafe.StringData(r) != unsafe.StringData(s) {
		t.Fatal("not the input")
	}
}
