package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"cockpit/live/atomicfile"
)

// HostsFile is the authority's list of the hosts it issued credentials to, under the runtime
// root of `fleet serve`: what `fleet serve` publishes in the peer bucket.
const HostsFile = "fleet.hosts"

// Peer is one host of the fleet and its public key, signed by the fleet's account key: how a
// host tells a peer's signed halt, resume, count or audit entry from a forgery.
type Peer struct {
	Host  string    `json:"host"`
	Key   string    `json:"key"`
	Added time.Time `json:"added"`
	Sig   string    `json:"sig"`
}

func (p Peer) input() []byte {
	return sigInput("peer", p.Host, p.Key, p.Added.UTC().Format(time.RFC3339Nano))
}

// SignPeer makes the signed peer record of a host and its key.
func (a *Authority) SignPeer(host, key string, at time.Time) (Peer, error) {
	p := Peer{Host: host, Key: key, Added: at.UTC()}
	sig, err := a.account.Sign(p.input())
	if err != nil {
		return Peer{}, err
	}
	p.Sig = encodeSig(sig)
	return p, nil
}

// verify checks the record's signature by the account.
func (p Peer) verify(account string) error {
	if err := ValidHostName(p.Host); err != nil {
		return err
	}
	return verifySig(account, p.input(), p.Sig)
}

// ReadHosts reads the authority's host list (none when the file does not exist).
func ReadHosts(path string) ([]Peer, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Peer
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// AddHost issues credentials for a new host and adds it to the host list at path. A name
// already on the list is refused: its credentials stay the only ones for it.
func AddHost(path string, a *Authority, host string, now time.Time) (Creds, Peer, error) {
	hosts, err := ReadHosts(path)
	if err != nil {
		return Creds{}, Peer{}, err
	}
	for _, h := range hosts {
		if h.Host == host {
			return Creds{}, Peer{}, fmt.Errorf("host %q already has credentials (key %s, added %s)", host, h.Key, h.Added.Format(time.RFC3339))
		}
	}
	c, err := a.Issue(host)
	if err != nil {
		return Creds{}, Peer{}, err
	}
	p, err := a.SignPeer(host, c.Key, now)
	if err != nil {
		return Creds{}, Peer{}, err
	}
	hosts = append(hosts, p)
	sort.Slice(hosts, func(i, j int) bool { return hosts[i].Host < hosts[j].Host })
	data, err := json.MarshalIndent(hosts, "", "  ")
	if err != nil {
		return Creds{}, Peer{}, err
	}
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return Creds{}, Peer{}, err
	}
	return c, p, nil
}

// peerCacheTTL is how long a peer's key is trusted without reading the bucket again.
const peerCacheTTL = time.Minute

type cachedPeer struct {
	key string
	at  time.Time
}

// PeerKey returns a host's public key from the peer list, checked against the account that
// issued this host's own credentials. Without credentials there is no anchor: every peer is
// unknown.
func (f *Fleet) PeerKey(ctx context.Context, host string) (string, error) {
	if f.id == nil {
		return "", errors.New("this host has no fleet credentials: peers cannot be checked")
	}
	if host == f.id.Host {
		return f.id.Key(), nil
	}
	f.peerMu.Lock()
	c, ok := f.peers[host]
	f.peerMu.Unlock()
	if ok && time.Since(c.at) < peerCacheTTL {
		return c.key, nil
	}
	kv, err := f.bucket(ctx, PeerBucket)
	if err != nil {
		return "", err
	}
	e, err := kv.Get(ctx, host)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return "", fmt.Errorf("host %q is not in the fleet's peer list", host)
	}
	if err != nil {
		return "", err
	}
	var p Peer
	if err := json.Unmarshal(e.Value(), &p); err != nil || p.Host != host {
		return "", fmt.Errorf("the peer record of %q is unreadable", host)
	}
	if err := p.verify(f.id.Account); err != nil {
		return "", fmt.Errorf("the peer record of %q is not signed by the fleet's account: %w", host, err)
	}
	f.peerMu.Lock()
	f.peers[host] = cachedPeer{key: p.Key, at: time.Now()}
	f.peerMu.Unlock()
	return p.Key, nil
}

// verifyBy checks a signature made by a host of the fleet; an error says why it is not one.
func (f *Fleet) verifyBy(ctx context.Context, host string, data []byte, sig string) error {
	if sig == "" {
		return errors.New("unsigned")
	}
	key, err := f.PeerKey(ctx, host)
	if err != nil {
		return err
	}
	if err := verifySig(key, data, sig); err != nil {
		f.peerMu.Lock() // the key may have been replaced: read it again next time
		delete(f.peers, host)
		f.peerMu.Unlock()
		return fmt.Errorf("not signed by host %q's key: %w", host, err)
	}
	return nil
}

// Peers lists the peer records whose signatures check out, by host name.
func (f *Fleet) Peers(ctx context.Context) ([]Peer, error) {
	if f.id == nil {
		return nil, errors.New("this host has no fleet credentials: peers cannot be checked")
	}
	kv, err := f.bucket(ctx, PeerBucket)
	if err != nil {
		return nil, err
	}
	return readAll(ctx, kv, func(k string, p Peer) bool { return p.Host == k && p.verify(f.id.Account) == nil },
		func(p Peer) string { return p.Host })
}
