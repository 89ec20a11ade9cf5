package sshserve

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	gossh "golang.org/x/crypto/ssh"

	"cockpit/internal/strictmode"
)

// Role is what a key may do over SSH.
type Role int

// Roles, each allowed what the one before may do and more.
const (
	RoleNone     Role = iota
	RoleViewer        // sees everything, may only halt (H)
	RoleOperator      // halt, resume, reduce-only, flatten, cancel, close, approvals, block, export
	RoleAdmin         // also commits mandates
)

// String is the role's name as authorized_keys spells it.
func (r Role) String() string {
	switch r {
	case RoleViewer:
		return "viewer"
	case RoleOperator:
		return "operator"
	case RoleAdmin:
		return "admin"
	}
	return "none"
}

// parseRole reads a role name; anything else is RoleNone.
func parseRole(s string) Role {
	switch s {
	case "viewer":
		return RoleViewer
	case "operator":
		return RoleOperator
	case "admin":
		return RoleAdmin
	}
	return RoleNone
}

// Identity is an authorized key: its role, its comment and its fingerprint.
type Identity struct {
	Role        Role
	Comment     string // the key line's comment, e.g. alice@laptop ("" when none)
	Fingerprint string // SHA256:…
	key         gossh.PublicKey
}

// Name is who the key is on screen and in the audit: its comment, else its fingerprint.
func (id Identity) Name() string {
	if id.Comment != "" {
		return id.Comment
	}
	return id.Fingerprint
}

// Actor is the operator name actions over this key are audited as ("ssh:alice@laptop").
func (id Identity) Actor() string { return "ssh:" + id.Name() }

// ParseAuthorizedKeys reads an authorized_keys file in cockpit's format: each line is an
// OpenSSH public key line prefixed with its role, `role=operator ssh-ed25519 AAAA… alice@laptop`.
// Blank lines and # comments are skipped. A line without a valid role, a key that does not
// parse, or a key or comment given twice is an error naming the line: the whole file is
// refused, never half read.
func ParseAuthorizedKeys(data []byte) ([]Identity, error) {
	var ids []Identity
	seenKey, seenName := map[string]int{}, map[string]int{}
	for i, raw := range bytes.Split(data, []byte("\n")) {
		n, line := i+1, strings.TrimSpace(string(raw))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		opt, rest, _ := strings.Cut(line, " ")
		name, val, ok := strings.Cut(opt, "=")
		if !ok || name != "role" {
			return nil, fmt.Errorf("authorized_keys line %d: no role: start the line with role=viewer, role=operator or role=admin", n)
		}
		role := parseRole(val)
		if role == RoleNone {
			return nil, fmt.Errorf("authorized_keys line %d: role=%q: want viewer, operator or admin", n, val)
		}
		key, comment, opts, _, err := gossh.ParseAuthorizedKey([]byte(strings.TrimSpace(rest)))
		if err != nil {
			return nil, fmt.Errorf("authorized_keys line %d: %v", n, err)
		}
		if len(opts) > 0 {
			return nil, fmt.Errorf("authorized_keys line %d: OpenSSH options %q are not supported (only role=)", n, strings.Join(opts, ","))
		}
		id := Identity{Role: role, Comment: strings.TrimSpace(comment), Fingerprint: gossh.FingerprintSHA256(key), key: key}
		if prev, dup := seenKey[id.Fingerprint]; dup {
			return nil, fmt.Errorf("authorized_keys line %d: the key of line %d again", n, prev)
		}
		if prev, dup := seenName[id.Name()]; dup {
			return nil, fmt.Errorf("authorized_keys line %d: %q is already line %d's name (each key needs its own comment)", n, id.Name(), prev)
		}
		seenKey[id.Fingerprint], seenName[id.Name()] = n, n
		ids = append(ids, id)
	}
	return ids, nil
}

// KeyFile is the authorized_keys file, read again at every authentication (a key removed
// from it is refused at once; the file is small).
type KeyFile struct {
	Root string // the runtime root ("" means Path's directory): the way down to Path is checked from it
	Path string
}

// Load reads and parses the file. A file that is missing or does not parse authorizes nobody
// (the error says why), and so does one that someone other than the user or root owns or
// could change, or could have swapped through its directories (StrictModes, issue 27 item 5).
func (f *KeyFile) Load() ([]Identity, error) {
	root := f.Root
	if root == "" {
		root = filepath.Dir(f.Path)
	}
	if err := strictmode.Check(root, f.Path); err != nil {
		return nil, fmt.Errorf("authorized keys: %w", err)
	}
	data, err := os.ReadFile(f.Path)
	if err != nil {
		return nil, fmt.Errorf("authorized keys: %w", err)
	}
	ids, err := ParseAuthorizedKeys(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	return ids, nil
}

// Lookup finds key in the file (read now); ok is false for an unknown key
// and whenever the file cannot be read.
func (f *KeyFile) Lookup(key gossh.PublicKey) (Identity, bool) {
	ids, err := f.Load()
	if err != nil || key == nil {
		return Identity{}, false
	}
	kb := key.Marshal()
	for _, id := range ids {
		if bytes.Equal(id.key.Marshal(), kb) {
			return id, true
		}
	}
	return Identity{}, false
}
