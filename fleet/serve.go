package fleet

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ServeOptions shape an embedded JetStream server.
type ServeOptions struct {
	Host     string // listen address; default 127.0.0.1 (loopback)
	Port     int    // default 4222; -1 picks a free port
	StoreDir string // JetStream data (<root>/fleet)
	Token    string // clients must present it when set
	Name     string // server name (a cluster's members need distinct ones)
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
		NoLog: true, NoSigs: true, Authorization: o.Token, SyncAlways: true}
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
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, errors.New("fleet serve: the server did not start")
	}
	return ns, nil
}
