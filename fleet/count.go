package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// Count operations: what a day-count write did.
const (
	opReserve = "reserve" // one slot for an order about to be checked and sent
	opSent    = "sent"    // a slot for an order the broker already has (a bracket's leg)
	opRelease = "release" // a slot given back: the only write that may lower the count
	opLease   = "lease"   // a block of slots taken ahead, handed out by this host without a write
	opReturn  = "return"  // a lease's unused slots given back (at most maxLease): lowers the count
)

// count is a day key's value: the count, the reservation that made it, and, signed by the
// host that wrote it, the count and revision it replaced. A count goes down only by a
// signed release of one; any other value that lowers it is refused.
type count struct {
	N    int    `json:"n"`
	ID   string `json:"id"`
	Op   string `json:"op"`
	Prev int    `json:"prev"` // the count this write replaced
	Base uint64 `json:"base"` // the revision it replaced (0: the day's first write)
	Host string `json:"host"`
	// Open is each host's unused leased slots as of its last write (signed with the rest):
	// the count holds them, the orders sent do not.
	Open map[string]held `json:"open,omitempty"`
	Sig  string          `json:"sig,omitempty"`
}

// held is a host's unused leased slots, when it said so (unix seconds, its clock) and the id
// of its write that said so (its usage key names that write as it uses the slots).
type held struct {
	N  int    `json:"n"`
	At int64  `json:"at"`
	ID string `json:"id,omitempty"`
}

func (c count) input(key string) []byte {
	parts := []string{key, strconv.Itoa(c.N), c.ID, c.Op, strconv.Itoa(c.Prev), strconv.FormatUint(c.Base, 10), c.Host}
	if len(c.Open) > 0 { // a count written before leases is signed without it
		hosts := make([]string, 0, len(c.Open))
		for h := range c.Open {
			hosts = append(hosts, h)
		}
		sort.Strings(hosts)
		for _, h := range hosts {
			parts = append(parts, h, strconv.Itoa(c.Open[h].N), strconv.FormatInt(c.Open[h].At, 10), c.Open[h].ID)
		}
	}
	return sigInput("count", parts...)
}

// encodeCount signs (with credentials) and encodes a count write.
func (f *Fleet) encodeCount(key string, c count) []byte {
	c.Host = f.host
	if f.id != nil {
		c.Sig = f.id.sign(c.input(key))
	}
	data, _ := json.Marshal(c)
	return data
}

// parseCount reads a day key's value: the count and the reservation id. The format before
// signed counts ("<count> <id>") is read too, as an unsigned value.
func parseCount(b []byte) (int, string, error) {
	c, err := decodeCount(b)
	return c.N, c.ID, err
}

func decodeCount(b []byte) (count, error) {
	var c count
	if len(b) > 0 && b[0] == '{' {
		if err := json.Unmarshal(b, &c); err != nil || c.N < 0 || badOpen(c.Open) {
			return count{}, fmt.Errorf("not a count: %q", b)
		}
		return c, nil
	}
	num, id, _ := strings.Cut(string(b), " ")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return count{}, fmt.Errorf("not a count: %q", b)
	}
	return count{N: n, ID: id, Prev: n}, nil
}

// badOpen reports a negative number of unused leased slots.
func badOpen(open map[string]held) bool {
	for _, h := range open {
		if h.N < 0 {
			return true
		}
	}
	return false
}

// lowers says why a count that went down is not a release of one or a return of at most
// maxLease ("" when it is).
func (c count) lowers() string {
	switch {
	case c.N >= c.Prev:
		return ""
	case c.Op == opRelease && c.N == c.Prev-1:
		return ""
	case c.Op == opReturn && c.Prev-c.N <= maxLease:
		return ""
	}
	return fmt.Sprintf("went down from %d without a release of one or a return of at most %d", c.Prev, maxLease)
}

// checkCount says why the head of a day key cannot be built on ("" when it can): it must be
// signed by a host of the fleet, replace the entry right before it, and not lower the count
// other than by a release of one or a lease's return (at most maxLease). Without credentials
// nothing can be checked ("").
func (d *Days) checkCount(ctx context.Context, key string, e jetstream.KeyValueEntry) string {
	if d.F.id == nil {
		return ""
	}
	c, err := decodeCount(e.Value())
	if err != nil {
		return err.Error()
	}
	if err := d.F.verifyBy(ctx, c.Host, c.input(key), c.Sig); err != nil {
		return fmt.Sprintf("count %d (revision %d): %v", c.N, e.Revision(), err)
	}
	if why := c.lowers(); why != "" {
		return fmt.Sprintf("count %d (revision %d) %s", c.N, e.Revision(), why)
	}
	if e.Revision() != c.Base+1 { // another entry of the key may lie between: it must not
		next, err := d.nextOf(ctx, key, c.Base+1)
		if err != nil {
			return fmt.Sprintf("count %d (revision %d): its predecessor cannot be read: %v", c.N, e.Revision(), err)
		}
		if next != e.Revision() {
			return fmt.Sprintf("count %d (revision %d) replays a write made on revision %d, not on the one before it (%d)",
				c.N, e.Revision(), c.Base, next)
		}
	}
	return ""
}

// stream binds the day bucket's stream once (a JetStream info request each time otherwise).
func (d *Days) stream(ctx context.Context) (jetstream.Stream, error) {
	d.mu.Lock()
	s := d.daysStream
	d.mu.Unlock()
	if s != nil {
		return s, nil
	}
	s, err := d.F.js.Stream(ctx, "KV_"+DayBucket)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.daysStream = s
	d.mu.Unlock()
	return s, nil
}

// nextOf returns the revision of the key's first entry at or after rev (a put, a delete or
// a purge marker); 0 when there is none.
func (d *Days) nextOf(ctx context.Context, key string, rev uint64) (uint64, error) {
	s, err := d.stream(ctx)
	if err != nil {
		return 0, err
	}
	m, err := s.GetMsg(ctx, rev, jetstream.WithGetMsgSubject("$KV."+DayBucket+"."+key))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return m.Sequence, nil
}

// removed returns the revision of the marker left by a delete or purge of a key that reads
// as absent (0 when the key never existed): the day's count was wiped, which only a forger
// does.
func (d *Days) removed(ctx context.Context, key string) (uint64, error) {
	if d.F.id == nil {
		return 0, nil
	}
	s, err := d.stream(ctx)
	if err != nil {
		return 0, err
	}
	m, err := s.GetLastMsgForSubject(ctx, "$KV."+DayBucket+"."+key)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return m.Sequence, nil
}

// trusted is the count to restore when the head of key was refused: the highest of the
// key's history entries that check out and of the counts this process saw trusted. ok is
// false when neither exists.
func (d *Days) trusted(ctx context.Context, kv jetstream.KeyValue, key string) (int, bool) {
	d.mu.Lock()
	best, ok := d.high[key]
	d.mu.Unlock()
	hist, err := kv.History(ctx, key)
	if err != nil {
		return best, ok
	}
	for _, e := range hist {
		if e.Operation() != jetstream.KeyValuePut || d.checkCount(ctx, key, e) != "" {
			continue
		}
		if c, err := decodeCount(e.Value()); err == nil && (!ok || c.N > best) {
			best, ok = c.N, true
		}
	}
	return best, ok
}

// saw remembers the highest trusted count of a key (a restore's last resort).
func (d *Days) saw(key string, n int) {
	d.mu.Lock()
	if d.high == nil {
		d.high = map[string]int{}
	}
	if n > d.high[key] {
		d.high[key] = n
	}
	d.mu.Unlock()
}
