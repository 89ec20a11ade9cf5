package fleet

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// use is a host's usage key for one day key: how many slots of its lease (the count write
// id) it holds unused, written (signed) as it hands them out. Only that host writes it, so it
// is a plain put, never contended.
type use struct {
	ID     string `json:"id"`
	Unused int    `json:"unused"`
	Host   string `json:"host"`
	At     int64  `json:"at"`
	Sig    string `json:"sig,omitempty"`
}

func (u use) input(key string) []byte {
	return sigInput("use", key, u.ID, strconv.Itoa(u.Unused), u.Host, strconv.FormatInt(u.At, 10))
}

// useKey is host's usage key of a day key.
func useKey(key, host string) string { return key + ".use." + brokerToken(host) }

// putUse publishes this host's unused slots of its lease id on key without waiting for the
// store's ack, then waits for the server to answer a ping sent after it: the fleet is there
// and has the put in order (a reader may see it a moment later; until then it reads what the
// host's count write said).
func (d *Days) putUse(ctx context.Context, key, id string, unused int) error {
	if _, err := d.F.bucket(ctx, DayBucket); err != nil {
		return err
	}
	u := use{ID: id, Unused: unused, Host: d.F.host, At: time.Now().Unix()}
	k := useKey(key, d.F.host)
	if d.F.id != nil {
		u.Sig = d.F.id.sign(u.input(k))
	}
	data, _ := json.Marshal(u)
	if _, err := d.F.js.PublishAsync("$KV."+DayBucket+"."+k, data); err != nil {
		return err
	}
	return d.F.nc.FlushWithContext(ctx)
}

// hostUnused is how many slots host holds unused per its entry v in a head: its usage key's
// figure when that names the same write and checks out (signed by host, no more than v
// said), else v's own.
func (d *Days) hostUnused(ctx context.Context, kv jetstream.KeyValue, key, host string, v held) int {
	k := useKey(key, host)
	e, err := kv.Get(ctx, k)
	if err != nil {
		return v.N
	}
	var u use
	if json.Unmarshal(e.Value(), &u) != nil || u.ID != v.ID || u.Host != host || u.Unused < 0 || u.Unused > v.N {
		return v.N
	}
	if d.F.id != nil && d.F.verifyBy(ctx, host, u.input(k), u.Sig) != nil {
		return v.N
	}
	return u.Unused
}
