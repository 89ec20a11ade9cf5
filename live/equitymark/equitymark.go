// Package equitymark keeps the day's equity mark of a broker that keeps none itself (every
// broker but the embedded paper one, whose account keeps it): the equity at the UTC day's
// first valuation and the day's peak, in live/<broker>/day_equity.json, written atomically.
// The loss limits (max_daily_loss_usd, max_drawdown_pct) and the day P&L read this one
// baseline, so a restart on the same day keeps it. It imports live; live does not import it.
package equitymark

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// FileName is the mark's file in the broker's directory.
const FileName = "day_equity.json"

// Path is broker's mark file under root.
func Path(root live.Root, broker string) string {
	return filepath.Join(root.BrokerDir(broker), FileName)
}

// File is a broker's mark kept in its file. It also remembers the last mark it saw: within a
// process the day's start and peak never go down, whatever happens to the file (a deleted or
// rolled-back file cannot erase the day's loss). Safe for concurrent use.
type File struct {
	Root   live.Root
	Broker string

	mu  sync.Mutex
	mem live.EquityMark
}

var _ live.EquityMarker = (*File)(nil)

// MarkEquity implements live.EquityMarker. A file that exists but cannot be read for today is
// an error naming it (the loss limits then fail closed): deleting it starts the day's
// baseline again at the next equity read.
func (f *File) MarkEquity(now time.Time, equity money.Amount) (live.EquityMark, error) {
	key, err := live.NormalizeBroker(f.Broker)
	if err != nil {
		return live.EquityMark{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	day := live.UTCDay(now)
	onFile, found, err := Read(f.Root, key)
	if err != nil && f.mem.Day != day {
		return live.EquityMark{}, err
	}
	cur := onFile
	if !found || err != nil || cur.Day != day {
		cur = live.EquityMark{}
	}
	if f.mem.Day == day { // the process's own view: the file cannot lower it
		if cur.Day != day {
			cur = f.mem
		}
		cur.Start, cur.Peak = money.Max(cur.Start, f.mem.Start), money.Max(cur.Peak, f.mem.Peak)
	}
	next, _, err := cur.Next(now, equity)
	if err != nil {
		return cur, err
	}
	if !found || !same(next, onFile) {
		if err := write(f.Root, key, next); err != nil {
			return cur, err
		}
	}
	f.mem = next
	return next, nil
}

// Read returns broker's mark from its file; found is false when there is none. Content that
// is not a mark is an error that names the file and what fixes it.
func Read(root live.Root, broker string) (m live.EquityMark, found bool, err error) {
	path := Path(root, broker)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, false, nil
	}
	bad := func(why string) error {
		return fmt.Errorf("day equity mark %s is unreadable (%s): delete it to start the day's baseline again at the next equity read", path, why)
	}
	if err != nil {
		return m, true, bad(err.Error())
	}
	doc, err := jsonv.Parse(data, jsonv.Options{RejectDuplicates: true, NonFinite: true})
	if err != nil {
		return m, true, bad(err.Error())
	}
	o, ok := doc.(*jsonv.Object)
	if !ok {
		return m, true, bad("not a JSON object")
	}
	day, _ := o.Value("day").(string)
	if _, err := time.Parse(time.DateOnly, day); err != nil {
		return m, true, bad(fmt.Sprintf("day %s is not YYYY-MM-DD", live.DescribeValue(o.Value("day"))))
	}
	m.Day = day
	for _, f := range []struct {
		key string
		dst *money.Amount
	}{{"start_equity", &m.Start}, {"peak_equity", &m.Peak}} {
		v, ok := o.Get(f.key)
		if !ok {
			return m, true, bad(f.key + " is missing")
		}
		a, err := live.DecimalFromJSON(v)
		if err != nil || a.Sign() <= 0 {
			return m, true, bad(fmt.Sprintf("%s %s is not a positive number", f.key, live.DescribeValue(v)))
		}
		*f.dst = a
	}
	return m, true, nil
}

func write(root live.Root, broker string, m live.EquityMark) error {
	doc := jsonv.ObjectOf("day", m.Day, "start_equity", jsonv.Number(m.Start.String()), "peak_equity", jsonv.Number(m.Peak.String()))
	if err := atomicfile.WriteFile(Path(root, broker), jsonv.MustMarshal(doc, jsonv.Python), 0o600); err != nil {
		return fmt.Errorf("save the day equity mark: %w", err)
	}
	return nil
}

func same(a, b live.EquityMark) bool {
	return a.Day == b.Day && a.Start.Equal(b.Start) && a.Peak.Equal(b.Peak)
}
