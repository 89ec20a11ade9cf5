package fleet

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nkeys"

	"cockpit/internal/tokenfile"
)

// CredsFile is a host's own credentials under its runtime root (0600): `fleet add-host`
// writes them, the operator copies them here (or names them in [fleet] creds).
const CredsFile = "fleet.creds"

// Identity is a host's fleet credentials: its name, its NATS user JWT and key, and the
// account that signed them (the fleet's trust anchor). The user key is an ed25519 key: it
// also signs the host's halt and resume records, its day-count writes and its audit entries.
type Identity struct {
	Host    string
	JWT     string
	Account string // the issuer: the key the peer list is signed with
	kp      nkeys.KeyPair
}

// LoadIdentity reads a creds file. A file that group or others may read is refused.
func LoadIdentity(path string) (*Identity, error) {
	data, err := tokenfile.ReadPrivate(path)
	if err != nil {
		return nil, err
	}
	id, err := ParseIdentity(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return id, nil
}

// ParseIdentity reads a creds file's content: the JWT's subject must be the seed's key,
// its name a valid host name and its issuer an account.
func ParseIdentity(data []byte) (*Identity, error) {
	tok, err := jwt.ParseDecoratedJWT(data)
	if err != nil {
		return nil, fmt.Errorf("not a NATS creds file: %w", err)
	}
	kp, err := jwt.ParseDecoratedUserNKey(data)
	if err != nil {
		return nil, fmt.Errorf("not a NATS creds file: %w", err)
	}
	uc, err := jwt.DecodeUserClaims(tok)
	if err != nil {
		return nil, fmt.Errorf("the creds' JWT: %w", err)
	}
	pub, err := kp.PublicKey()
	if err != nil || pub != uc.Subject {
		return nil, errors.New("the creds' key is not the JWT's subject")
	}
	issuer := uc.Issuer
	if uc.IssuerAccount != "" {
		issuer = uc.IssuerAccount
	}
	if !nkeys.IsValidPublicAccountKey(issuer) {
		return nil, errors.New("the creds' JWT was not issued by an account")
	}
	if err := ValidHostName(uc.Name); err != nil {
		return nil, fmt.Errorf("the creds' JWT name: %w", err)
	}
	return &Identity{Host: uc.Name, JWT: tok, Account: issuer, kp: kp}, nil
}

// Key is the host's public key (its NATS user key).
func (id *Identity) Key() string { return pubOf(id.kp) }

// seed is the user seed, for the NATS connection.
func (id *Identity) seed() string { return seedOf(id.kp) }

// sign signs data with the host's key (ed25519) and returns the signature in base64.
func (id *Identity) sign(data []byte) string {
	sig, err := id.kp.Sign(data)
	if err != nil {
		return ""
	}
	return encodeSig(sig)
}

func encodeSig(sig []byte) string { return base64.RawURLEncoding.EncodeToString(sig) }

// sigInput is the bytes a signature covers: a domain, then each part length-prefixed, so
// no two different records share an input and one kind of record never passes for another.
func sigInput(domain string, parts ...string) []byte {
	b := []byte("cockpit-fleet/" + domain + "\n")
	for _, p := range parts {
		b = strconv.AppendInt(b, int64(len(p)), 10)
		b = append(b, ':')
		b = append(b, p...)
	}
	return b
}

// verifySig checks an ed25519 signature (base64) of data by a NATS public key (a user's or
// an account's) with the standard library.
func verifySig(pub string, data []byte, sig string) error {
	prefix := nkeys.PrefixByteUser
	if nkeys.IsValidPublicAccountKey(pub) {
		prefix = nkeys.PrefixByteAccount
	}
	raw, err := nkeys.Decode(prefix, []byte(pub))
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return fmt.Errorf("not a public key: %q", pub)
	}
	s, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || len(s) != ed25519.SignatureSize {
		return errors.New("not a signature")
	}
	if !ed25519.Verify(ed25519.PublicKey(raw), data, s) {
		return errors.New("bad signature")
	}
	return nil
}
