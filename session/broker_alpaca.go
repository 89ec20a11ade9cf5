package session

import (
	"fmt"

	"cockpit/config"
	"cockpit/live"
	"cockpit/live/alpaca"
	"cockpit/live/redact"
)

func init() { registerBroker(config.KindAlpaca, openAlpaca) }

// openAlpaca opens a kind = "alpaca" table: the keys come only from the environment
// variables the table names (APCA_API_KEY_ID / APCA_API_SECRET_KEY by default) and are
// registered for redaction before any request is made.
func openAlpaca(rt *Runtime, key string, bc config.BrokerConfig) (live.Broker, error) {
	keyEnv, secretEnv := bc.Alpaca.Envs()
	id, secret := rt.Getenv(keyEnv), rt.Getenv(secretEnv)
	if id == "" || secret == "" {
		return nil, fmt.Errorf("broker %q: the Alpaca keys are read from the environment: set %s and %s (names from brokers.%s.key_env / secret_env)", key, keyEnv, secretEnv, key)
	}
	redact.RegisterSecret(id)
	redact.RegisterSecret(secret)
	base, data := bc.Alpaca.URLs(bc.Mode)
	if !bc.Live() { // again here: a paper table never reaches the live API, however it is spelled
		if err := config.CheckAlpacaPaperURL(base); err != nil {
			return nil, fmt.Errorf("broker %q: mode = %q: %w", key, bc.Mode, err)
		}
	}
	b, err := alpaca.New(alpaca.Config{Key: key, Mode: bc.Mode, BaseURL: base, DataURL: data, KeyID: id, Secret: secret,
		Feed: bc.Alpaca.FeedName(), Timeout: bc.Timeout.Duration, StreamBackoff: bc.Alpaca.StreamBackoff.Duration,
		StreamBackoffMax: bc.Alpaca.StreamBackoffMax.Duration, Now: rt.Now, Log: rt.Log})
	if err != nil {
		return nil, fmt.Errorf("broker %q: %w", key, err)
	}
	rt.Log.Info("alpaca connector", "broker", key, "mode", bc.Mode, "base_url", base, "data_url", data)
	return b, nil
}
