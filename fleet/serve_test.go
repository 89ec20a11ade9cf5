package fleet_test

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"cockpit/fleet"
)

// TestServePortInUse: a client or cluster port another process holds is named in the error
// (it was "the server did not start", after a 10 s wait).
func TestServePortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	for _, tc := range []struct {
		name string
		opts fleet.ServeOptions
	}{
		{"client port", fleet.ServeOptions{Port: port}},
		{"cluster port", fleet.ServeOptions{Port: -1, Name: "n1", Cluster: &fleet.ClusterOptions{Name: "c", Host: "127.0.0.1", Port: port,
			Routes: []string{fmt.Sprintf("nats-route://127.0.0.1:%d", port)}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.StoreDir = t.TempDir()
			ns, err := fleet.Serve(tc.opts)
			if err == nil {
				ns.Shutdown()
				t.Fatalf("a server started on port %d, which is in use", port)
			}
			if !strings.Contains(err.Error(), "listening") || !strings.Contains(err.Error(), fmt.Sprint(port)) {
				t.Errorf("error %q does not say the port %d could not be listened on", err, port)
			}
		})
	}
}
