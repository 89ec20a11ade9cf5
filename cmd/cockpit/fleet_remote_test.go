package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/fleet"
)

// TestFleetServeRemoteNeedsAllowRemoteAndTLS: `fleet serve` on an address other hosts can
// reach starts only with --allow-remote and a TLS certificate; each refusal names the flag
// that fixes it, and nothing is bound (issue 27: it started on 0.0.0.0 with neither).
func TestFleetServeRemoteNeedsAllowRemoteAndTLS(t *testing.T) {
	port := freeLoopbackPort(t)
	addr := fmt.Sprintf("0.0.0.0:%d", port)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no --allow-remote", []string{"--listen", addr}, "--allow-remote"},
		{"no TLS", []string{"--listen", addr, "--allow-remote"}, "--tls-cert"},
		{"a key without a certificate", []string{"--listen", addr, "--allow-remote", "--tls-key", "k.pem"}, "--tls-cert and --tls-key go together"},
		{"--no-auth off loopback", []string{"--listen", addr, "--allow-remote", "--no-auth"}, "--no-auth is for loopback only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := run(t, t.TempDir(), "", append([]string{"fleet", "serve", "--for", "300ms"}, c.args...)...)
			if code == exitOK || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, stderr %q, stdout %q; want a refusal naming %q", code, errOut, out, c.want)
			}
		})
	}
}

// TestFleetServeTLS: with a certificate the server takes TLS clients, and this root's host
// joins with its creds and the CA.
func TestFleetServeTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key, ca := selfSigned(t, dir)
	port := freeLoopbackPort(t)
	home := t.TempDir()
	cfg := fmt.Sprintf("[fleet]\nurl = \"tls://127.0.0.1:%d\"\nhost = \"desk1\"\nca = %q\n", port, ca)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	fleetServeContext = func() context.Context { return ctx }
	defer func() { fleetServeContext = context.Background }()
	served := make(chan string, 1)
	go func() {
		out, errOut, code := run(t, home, "", "fleet", "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--tls-cert", cert, "--tls-key", key)
		served <- fmt.Sprintf("exit %d\n%s%s", code, out, errOut)
	}()
	defer func() {
		cancel()
		if r := <-served; !strings.HasPrefix(r, "exit 0") || !strings.Contains(r, "TLS: on") {
			t.Errorf("fleet serve: %s", r)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(home, fleet.CredsFile)); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var out, errOut string
	code := -1
	for code != 0 && time.Now().Before(deadline) { // the server makes its buckets once it listens
		out, errOut, code = run(t, home, "", "fleet", "status")
	}
	if code != 0 || !strings.Contains(out, "this host: desk1") {
		t.Fatalf("fleet status over TLS: exit %d\n%s%s", code, out, errOut)
	}
}

func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// selfSigned writes a CA-less self-signed certificate for 127.0.0.1 (it is its own CA).
func selfSigned(t *testing.T, dir string) (cert, key, ca string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cockpit fleet test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key, cert
}
