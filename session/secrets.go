package session

import (
	"os"

	"cockpit/config"
	"cockpit/live/redact"
)

// brokerKeyEnvs name the broker credentials cockpit or a Vibe-Trading install sharing the
// root may be given; APCA_API_KEY_ID does not look like a secret by name.
var brokerKeyEnvs = []string{"ALPACA_API_KEY", "ALPACA_API_SECRET", "ALPACA_SECRET_KEY", "APCA_API_KEY_ID", "APCA_API_SECRET_KEY"}

// RegisterSecrets makes every redaction (store, log, console) scrub the values of the
// configured secrets: the LLM key from agents.llm.api_key_env, the broker keys, and any
// process variable named like a credential.
func RegisterSecrets(cfg config.Config, getenv func(string) string) {
	redact.RegisterSecretsFromEnv(os.Environ())
	for _, name := range append([]string{cfg.Agents.LLM.APIKeyEnv, cfg.Fleet.TokenEnv}, brokerKeyEnvs...) {
		if name != "" {
			redact.RegisterSecret(getenv(name))
		}
	}
}
