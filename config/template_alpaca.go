package config

// AlpacaSection is the [brokers.alpaca] table `cockpit init --broker alpaca` writes, every
// field commented. The keys are never in the file: only the names of the variables.
const AlpacaSection = `
# Alpaca through its official SDK. The API keys are read from the environment variables
# named below, never from this file; with either unset the connector refuses to start.
[brokers.alpaca]
kind = "alpaca"
mode = "paper"                 # paper | live. live trades real money and ALSO needs
                               # ` + "`cockpit run --live`" + `; without the flag the run refuses to start
timeout = "10s"                # per REST request; a submit that times out is never resent:
                               # it is looked up by its client order id
# base_url = "https://paper-api.alpaca.markets"   # default: paper; https://api.alpaca.markets
                                                   # only when mode = "live"
# data_url = "https://data.alpaca.markets"        # market data (latest quotes)
key_env = "APCA_API_KEY_ID"        # the variable holding the key id
secret_env = "APCA_API_SECRET_KEY" # the variable holding the secret key
feed = "iex"                   # quotes feed: iex (free) | sip | delayed_sip
stream_backoff = "250ms"       # first wait before the trade-updates stream reconnects
stream_backoff_max = "30s"     # the wait doubles up to this
`

// brokerSections are the sections `cockpit init --broker <kind>` can add, by kind.
var brokerSections = map[string]string{KindAlpaca: AlpacaSection, KindMCP: TemplateMCP}

// BrokerSection returns the template section of a broker kind and the key it configures.
func BrokerSection(kind string) (section string, ok bool) {
	section, ok = brokerSections[kind]
	return section, ok
}
