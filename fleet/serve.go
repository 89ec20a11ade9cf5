package fleet

import (
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ServeOptions shape an embedded JetStream server.
type ServeOptions struct {
	Host     string // listen address; default 127.0.0.1 (loopback)
	Port     int    // default 4222; -1 picks a free port
	StoreDir string // JetStream data (<root>/fleet)
	// Auth, when set, is the fleet's authority: the server lets in only users whose
	// credentials its account signed, each with its own permissions, and Serve creates the
	// buckets and the audit stream and publishes Peers. Without it the server is open (tests,
	// a loopback demo).
	Auth     *Authority
	Peers    []Peer
	Replicas int            // of the buckets and stream Serve creates (default 1)
	Audit    AuditRetention // the audit stream's limits (zero fields: the defaults)
	TLS      *tls.Config    // clients connect with TLS (required off loopback)
	Name     string         // server name (a cluster's members need distinct ones)
	// Cluster, when set, joins a cluster: its name, this node's route listener and the
	// other nodes' route URLs (nats-route://host:port).
	Cluster *ClusterOptions
}

// ClusterOptions make an embedded server one node of a JetStream cluster.
type ClusterOptions struct {
	Name   string
	Host   string
	Port   int
	Routes []string
}

// Serve starts an embedded JetStream server and waits until it takes connections.
func Serve(o ServeOptions) (*server.Server, error) {
	if o.StoreDir == "" {
		return nil, errors.New("fleet serve: no data directory")
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Port == 0 {
		o.Port = 4222
	}
	// SyncAlways: JetStream acks before fsync by default (every 2 min), so a one-node server
	// that crashed could forget counted orders; a day count must survive it.
	opts := &server.Options{ServerName: o.Name, Host: o.Host, Port: o.Port, JetStream: true, StoreDir: o.StoreDir,
		NoLog: true, NoSigs: true, SyncAlways: true}
	if o.TLS != nil {
		opts.TLSConfig, opts.TLS, opts.TLSTimeout = o.TLS, true, 2
	}
	if o.Auth != nil {
		if err := o.Auth.configure(opts); err != nil {
			return nil, fmt.Errorf("fleet serve: authority: %w", err)
		}
	}
	if c := o.Cluster; c != nil {
		opts.Cluster = server.ClusterOpts{Name: c.Name, Host: c.Host, Port: c.Port}
		routes := ""
		for i, r := range c.Routes {
			if i > 0 {
				routes += ","
			}
			routes += r
		}
		if routes != "" {
			opts.Routes = server.RoutesFromStr(routes)
		}
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("fleet serve: %w", err)
	}
	fatal := &fatalLog{stop: make(chan struct{})}
	ns.SetLogger(fatal, false, false)
	go ns.Start()
	for deadline := time.Now().Add(10 * time.Second); !ns.ReadyForConnections(50 * time.Millisecond); {
		select {
		case <-fatal.stop: // a port in use: say so now, not after the whole wait
			ns.Shutdown()
			return nil, fmt.Errorf("fleet serve: %s", fatal.why())
		default:
		}
		if time.Now().After(deadline) {
			ns.Shutdown()
			return nil, errors.New("fleet serve: the server did not start within 10 s")
		}
	}
	if o.Cluster == nil { // a cluster is provisioned once all its nodes are up
		if err := Provision(ns, o.Auth, o.Replicas, o.Peers, o.Audit); err != nil {
			ns.Shutdown()
			return nil, err
		}
	}
	return ns, nil
}

// fatalLog keeps the embedded server's first fatal error (a listener that cannot bind), which
// the server otherwise only logs; everything else it would log is dropped (NoLog).
type fatalLog struct {
	mu    sync.Mutex
	first string
	stop  chan struct{}
}

func (l *fatalLog) Fatalf(format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first == "" {
		l.first = fmt.Sprintf(format, v...)
		close(l.stop)
	}
}

func (l *fatalLog) why() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.first
}

func (*fatalLog) Noticef(string, ...any) {}
func (*fatalLog) Warnf(string, ...any)   {}
func (*fatalLog) Errorf(string, ...any)  {}
func (*fatalLog) Debugf(string, ...any)  {}
func (*fatalLog) Tracef(string, ...any)  {}
