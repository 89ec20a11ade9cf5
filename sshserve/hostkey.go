package sshserve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"

	"cockpit/internal/strictmode"
)

// HostKey reads the server's ed25519 host key at path, generating it (0600, its directory
// 0700) on first start. A key file readable by others is refused, and so is one (or a
// directory to make one in) that someone other than the user or root owns or may write.
func HostKey(path string) (gossh.Signer, error) {
	if err := strictmode.File(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("host key: %w", err)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if data, err = newHostKey(path); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("host key %s: mode %o: others may read it (chmod 600)", path, st.Mode().Perm())
	}
	signer, err := gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("host key %s: %w", path, err)
	}
	return signer, nil
}

func newHostKey(path string) ([]byte, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "cockpit serve-ssh host key")
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	data := pem.EncodeToMemory(block)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("host key: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("host key: %w", err)
	}
	return data, nil
}
