package metrics

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// DocMetric is one row of docs/metrics.md's table.
type DocMetric struct {
	Name, Type, Present string
}

// Always reports a metric every owner serves (its "present" cell does not start with "with").
func (d DocMetric) Always() bool { return !strings.HasPrefix(d.Present, "with") }

// docRow is a table row naming a metric: | `cockpit_x` | type | labels | present | meaning |
var docRow = regexp.MustCompile("^\\| `(cockpit_[a-z0-9_]+)` \\| ([a-z]+) \\| [^|]* \\| ([^|]+) \\|")

// DocMetrics parses the metrics table of docs/metrics.md (the repository's, from this package).
func DocMetrics(t testing.TB) []DocMetric {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "docs", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []DocMetric
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := docRow.FindStringSubmatch(sc.Text()); m != nil {
			out = append(out, DocMetric{Name: m[1], Type: m[2], Present: strings.TrimSpace(m[3])})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("docs/metrics.md: %d metric rows parsed, want the whole table (is the row format `| `name` | type | labels | present | meaning |`?)", len(out))
	}
	return out
}

// Scrape GETs url and parses the exposition with the Prometheus text parser.
func Scrape(t testing.TB, url string) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v\n%s", err, body)
	}
	return fams, string(body)
}

// Value is the value of the family's series whose labels include want (counter, gauge, or a
// histogram's count), and whether there is one.
func Value(f *dto.MetricFamily, want map[string]string) (float64, bool) {
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}
