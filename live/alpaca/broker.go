// Package alpaca is the Alpaca connector: live.Broker over the official SDK
// (alpaca-trade-api-go/v3). Every SDK option is passed explicitly — base URLs, keys, retry
// off, an HTTP client with a timeout — so neither the SDK's APCA_* environment fallback nor
// its live default URL can take effect. A submit that may have reached Alpaca (timeout, 5xx,
// a reply that cannot be read) is never resent: it is returned as live.ErrIndeterminate for
// the gate to resolve through OrderByClientID.
package alpaca

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/alpacahq/alpaca-trade-api-go/v3/alpaca"
	"github.com/alpacahq/alpaca-trade-api-go/v3/marketdata"

	"cockpit/live"
)

// Config is what the connector needs; every field but the backoffs, Now and Log is required.
type Config struct {
	Key              string        // the broker key (the [brokers.<key>] table)
	Mode             string        // paper | live
	BaseURL          string        // trading API, never empty
	DataURL          string        // market data API, never empty
	KeyID, Secret    string        // the API keys (from the environment, never the config file)
	Feed             string        // quotes feed: iex | sip | delayed_sip
	Timeout          time.Duration // per REST request; 0 = 10 s
	StreamBackoff    time.Duration // first reconnect wait; 0 = 250 ms
	StreamBackoffMax time.Duration // longest reconnect wait; 0 = 30 s
	Now              func() time.Time
	Log              *slog.Logger
}

// OAuthEnv is the variable the SDK would read an OAuth token from and send instead of the
// configured keys (its stream client cannot be stopped from doing so): the connector refuses
// to start while it is set.
const OAuthEnv = "APCA_API_OAUTH"

// Broker is Alpaca as a live.Broker.
type Broker struct {
	cfg    Config
	health health
	base   http.RoundTripper

	mu       sync.Mutex
	subs     []chan live.OrderUpdate
	seq      uint64
	tracked  map[string]live.Order // open orders this process placed or saw, by client order id
	finished map[string]live.Order // orders seen to finish, so a replayed fill is not counted twice
	stream   bool                  // the trade-updates stream is running
}

// New checks the configuration and returns the connector; it makes no request.
func New(cfg Config) (*Broker, error) {
	switch {
	case cfg.KeyID == "" || cfg.Secret == "":
		return nil, errors.New("alpaca: no API key and secret")
	case cfg.BaseURL == "" || cfg.DataURL == "":
		return nil, errors.New("alpaca: the trading and data URLs must be set explicitly (the SDK's default is the live API)")
	case os.Getenv(OAuthEnv) != "":
		return nil, fmt.Errorf("alpaca: %s is set: the SDK would send that token instead of the configured keys; unset it", OAuthEnv)
	case cfg.Mode != "paper" && cfg.Mode != "live":
		return nil, fmt.Errorf("alpaca: mode %q: want paper or live", cfg.Mode)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.StreamBackoff <= 0 {
		cfg.StreamBackoff = 250 * time.Millisecond
	}
	if cfg.StreamBackoffMax <= 0 {
		cfg.StreamBackoffMax = 30 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Feed == "" {
		cfg.Feed = "iex"
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	cfg.DataURL = strings.TrimRight(cfg.DataURL, "/")
	tr := http.DefaultTransport.(*http.Transport).Clone()
	b := &Broker{cfg: cfg, base: tr, tracked: map[string]live.Order{}, finished: map[string]live.Order{}}
	b.health.mode = cfg.Mode
	return b, nil
}

// Name implements live.Broker.
func (b *Broker) Name() string { return b.cfg.Key }

// Health implements live.HealthReporter.
func (b *Broker) Health() live.BrokerHealth { return b.health.get() }

// call is one REST request's SDK clients, bound to ctx through their HTTP transport: the SDK
// takes no context, so cancelling ctx aborts the request in flight, and the client's timeout
// bounds it otherwise.
type call struct {
	trade *sdk.Client
	data  *marketdata.Client
	rt    *roundTrip
}

// newCall builds the SDK clients for one request. It fails without sending anything when
// ctx has already ended.
func (b *Broker) newCall(ctx context.Context) (*call, error) {
	if err := ctx.Err(); err != nil {
		return nil, live.Transport(err)
	}
	rt := &roundTrip{ctx: ctx, next: b.base, key: b.cfg.KeyID, secret: b.cfg.Secret}
	hc := &http.Client{Timeout: b.cfg.Timeout, Transport: rt}
	return &call{rt: rt,
		trade: sdk.NewClient(sdk.ClientOpts{APIKey: b.cfg.KeyID, APISecret: b.cfg.Secret, BaseURL: b.cfg.BaseURL,
			RetryLimit: -1, RetryDelay: time.Millisecond, HTTPClient: hc}),
		data: marketdata.NewClient(marketdata.ClientOpts{APIKey: b.cfg.KeyID, APISecret: b.cfg.Secret, BaseURL: b.cfg.DataURL,
			RetryLimit: -1, RetryDelay: time.Millisecond, HTTPClient: hc, Feed: marketdata.Feed(b.cfg.Feed)}),
	}, nil
}

// done records the request's health and classifies its error (nil stays nil).
func (b *Broker) done(c *call, err error, submit bool) error {
	cerr := classify(c.rt, err, submit)
	b.health.record(c.rt, cerr, b.cfg.Now())
	return cerr
}
