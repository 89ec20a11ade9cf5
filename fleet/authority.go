package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"cockpit/internal/tokenfile"
	"cockpit/live/atomicfile"
)

// AuthorityFile holds a fleet's keys (NATS operator, system account and account seeds), under
// the runtime root of `fleet serve` (0600).
const AuthorityFile = "fleet.authority"

// Authority is a fleet's root of trust, in the NATS server's own decentralized authorization:
// an operator the server trusts, a system account, and the fleet's account, whose key signs
// each host's user credentials (with that host's permissions) and the list of peers. The
// account's public key is what every host checks the peer list against.
type Authority struct {
	operator, system, account nkeys.KeyPair
}

type authorityDoc struct {
	Operator string `json:"operator"`
	System   string `json:"system"`
	Account  string `json:"account"`
}

// NewAuthority makes fresh keys.
func NewAuthority() (*Authority, error) {
	a := &Authority{}
	var err error
	if a.operator, err = nkeys.CreateOperator(); err != nil {
		return nil, err
	}
	if a.system, err = nkeys.CreateAccount(); err != nil {
		return nil, err
	}
	if a.account, err = nkeys.CreateAccount(); err != nil {
		return nil, err
	}
	return a, nil
}

// LoadAuthority reads an authority file (fs.ErrNotExist when there is none). A file that
// group or others may read is refused.
func LoadAuthority(path string) (*Authority, error) {
	data, err := tokenfile.ReadPrivate(path)
	if err != nil {
		return nil, err
	}
	var doc authorityDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a fleet authority: %w", path, err)
	}
	a := &Authority{}
	for _, k := range []struct {
		seed   string
		prefix nkeys.PrefixByte
		into   *nkeys.KeyPair
	}{{doc.Operator, nkeys.PrefixByteOperator, &a.operator}, {doc.System, nkeys.PrefixByteAccount, &a.system},
		{doc.Account, nkeys.PrefixByteAccount, &a.account}} {
		kp, err := nkeys.FromSeed([]byte(k.seed))
		if err != nil {
			return nil, fmt.Errorf("%s: a bad key: %w", path, err)
		}
		if pub, _ := kp.PublicKey(); !nkeys.IsValidPublicKey(pub) || nkeys.Prefix(pub) != k.prefix {
			return nil, fmt.Errorf("%s: a key of the wrong kind", path)
		}
		*k.into = kp
	}
	return a, nil
}

// EnsureAuthority loads the authority at path, creating it (0600) when there is none.
func EnsureAuthority(path string) (*Authority, error) {
	a, err := LoadAuthority(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return a, err
	}
	if a, err = NewAuthority(); err != nil {
		return nil, err
	}
	doc := authorityDoc{Operator: seedOf(a.operator), System: seedOf(a.system), Account: seedOf(a.account)}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return nil, err
	}
	return a, nil
}

func seedOf(kp nkeys.KeyPair) string {
	s, _ := kp.Seed()
	return string(s)
}

func pubOf(kp nkeys.KeyPair) string {
	p, _ := kp.PublicKey()
	return p
}

// AccountKey is the fleet account's public key: the trust anchor of the peer list.
func (a *Authority) AccountKey() string { return pubOf(a.account) }

// configure puts the server in operator mode: it trusts the operator, resolves the two
// accounts from memory, and lets in only users whose credentials the account signed.
func (a *Authority) configure(o *server.Options) error {
	oc := jwt.NewOperatorClaims(pubOf(a.operator))
	oc.Name = "cockpit"
	oc.SystemAccount = pubOf(a.system)
	ojwt, err := oc.Encode(a.operator)
	if err != nil {
		return err
	}
	if oc, err = jwt.DecodeOperatorClaims(ojwt); err != nil {
		return err
	}
	sc := jwt.NewAccountClaims(pubOf(a.system))
	sc.Name = "SYS"
	sjwt, err := sc.Encode(a.operator)
	if err != nil {
		return err
	}
	ac := jwt.NewAccountClaims(pubOf(a.account))
	ac.Name = "cockpit"
	ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
	ajwt, err := ac.Encode(a.operator)
	if err != nil {
		return err
	}
	res := &server.MemAccResolver{}
	if err := res.Store(pubOf(a.system), sjwt); err != nil {
		return err
	}
	if err := res.Store(pubOf(a.account), ajwt); err != nil {
		return err
	}
	o.TrustedOperators, o.SystemAccount, o.AccountResolver = []*jwt.OperatorClaims{oc}, pubOf(a.system), res
	return nil
}

// Creds are one host's NATS credentials, as a creds file: the user JWT (its name is the
// host, its permissions the host's) and the user's key seed.
type Creds struct {
	Host string
	Key  string // the user's public key: the host's identity in the peer list
	Data []byte // the creds file's content
}

// Issue makes credentials for a host: it may write only its own heartbeat and audit
// subject, the halt bucket and the day counts, and read what hosts read.
func (a *Authority) Issue(host string) (Creds, error) {
	if err := ValidHostName(host); err != nil {
		return Creds{}, err
	}
	return a.issue(host, hostPermissions(host))
}

// adminCreds are credentials with every permission, for `fleet serve`'s own provisioning.
func (a *Authority) adminCreds() (Creds, error) { return a.issue(adminUser, nil) }

const adminUser = "cockpit-admin"

func (a *Authority) issue(name string, perms *jwt.Permissions) (Creds, error) {
	ukp, err := nkeys.CreateUser()
	if err != nil {
		return Creds{}, err
	}
	uc := jwt.NewUserClaims(pubOf(ukp))
	uc.Name = name
	uc.IssuedAt = time.Now().Unix()
	if perms != nil {
		uc.Permissions = *perms
	}
	ujwt, err := uc.Encode(a.account)
	if err != nil {
		return Creds{}, err
	}
	seed, err := ukp.Seed()
	if err != nil {
		return Creds{}, err
	}
	data, err := jwt.FormatUserConfig(ujwt, seed)
	if err != nil {
		return Creds{}, err
	}
	return Creds{Host: name, Key: pubOf(ukp), Data: data}, nil
}

// ValidHostName refuses a host name that is not a subject token of letters, digits, - and _.
func ValidHostName(h string) error {
	if h == "" || len(h) > 64 {
		return fmt.Errorf("host name %q: want 1 to 64 letters, digits, - and _", h)
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("host name %q: want letters, digits, - and _ only", h)
		}
	}
	if h == adminUser {
		return fmt.Errorf("host name %q is reserved", h)
	}
	return nil
}
