package live

import (
	"fmt"
	"strings"

	"cockpit/live/money"
	"cockpit/live/pystr"
)

// Instrument is what an order's symbol names, classified from the symbol's shape and the
// broker's (or agent's) word for its type.
type Instrument struct {
	Type   InstrumentType
	Symbol string          // normalised: "BTC/USD", "AAPL250117C00150000", "AAPL"
	Base   string          // crypto: the asset bought or sold ("BTC")
	Quote  string          // crypto: the currency it is priced in ("USD")
	Option *OptionContract // option: the parsed OCC symbol
}

// OptionContractSize is how many shares one US equity option contract covers.
var OptionContractSize = money.FromInt(100)

// Multiplier is what one unit of quantity is worth in units of the quoted price: 100 for an
// option (a contract is 100 shares, quoted per share), 1 otherwise.
func (i Instrument) Multiplier() money.Amount { return Multiplier(i.Type) }

// Multiplier is the contract multiplier of an instrument type: 100 for options, 1 otherwise.
func Multiplier(t InstrumentType) money.Amount {
	if t == Option {
		return OptionContractSize
	}
	return money.FromInt(1)
}

// cryptoQuotes are the quote currencies a crypto pair may be valued in: USD and the USD
// stablecoins. A pair quoted in anything else (ETH/BTC) has a price that is not dollars.
var cryptoQuotes = []string{"USDT", "USDC", "USD"}

// ClassifyInstrument classifies an order's symbol. hint is the type the broker or the agent
// named ("" when none): with a hint the symbol must have that type's shape (an option needs a
// valid OCC symbol, crypto a pair quoted in USD, USDT or USDC — "BTC/USD", "BTC-USD", or
// "BTCUSD"); without one the shape decides (OCC → option, a "/" currency pair → crypto, else
// equity).
// Equity and ETF symbols are taken as they are, as before, unless their shape is an option's
// or a pair's ("ETH/BTC"; "BRK/B" stays an equity): a contradiction is an error, never a
// guess. Forex and CFD symbols pass as given. A malformed symbol (symbolError: a control or
// invisible character, a non-ASCII letter, a stray separator such as GME.) is an error whatever
// the hint.
func ClassifyInstrument(symbol string, hint InstrumentType) (Instrument, error) {
	sym := pystr.Upper(pystr.Strip(symbol))
	if sym == "" {
		return Instrument{}, fmt.Errorf("symbol is empty")
	}
	if err := symbolError(symbol); err != nil {
		return Instrument{}, err
	}
	if hint != "" && !hint.Valid() {
		return Instrument{}, fmt.Errorf("instrument_type %s is not one of %s", pystr.Repr(string(hint)), joinEnum(InstrumentTypes))
	}
	occ, occErr := OptionContract{}, errNotOCCShape
	if hint == Option || occShape(sym) {
		occ, occErr = ParseOCC(sym)
	}
	switch hint {
	case "":
		switch {
		case occErr == nil:
			return Instrument{Type: Option, Symbol: sym, Option: &occ}, nil
		case slashPair(sym):
			return classifyCrypto(sym)
		}
		return Instrument{Type: Equity, Symbol: sym}, nil
	case Option:
		if occErr != nil {
			return Instrument{}, fmt.Errorf("symbol %s is not an OCC option symbol: %v", pystr.Repr(sym), occErr)
		}
		return Instrument{Type: Option, Symbol: sym, Option: &occ}, nil
	case Crypto:
		return classifyCrypto(sym)
	case Equity, ETF:
		if occErr == nil {
			return Instrument{}, fmt.Errorf("symbol %s is an OCC option symbol but instrument_type is %s", sym, hint)
		}
		if slashPair(sym) {
			return Instrument{}, fmt.Errorf("symbol %s is a currency pair but instrument_type is %s", sym, hint)
		}
	}
	return Instrument{Type: hint, Symbol: sym}, nil
}

// classifyCrypto reads a pair: BASE/QUOTE, BASE-QUOTE, or BASEQUOTE with a known quote suffix.
func classifyCrypto(sym string) (Instrument, error) {
	base, quote, found := strings.Cut(sym, "/")
	if !found {
		base, quote, found = strings.Cut(sym, "-")
	}
	if !found {
		for _, q := range cryptoQuotes {
			if b, ok := strings.CutSuffix(sym, q); ok && b != "" {
				base, quote, found = b, q, true
				break
			}
		}
	}
	if !found {
		return Instrument{}, fmt.Errorf("symbol %s is not a crypto pair quoted in %s", pystr.Repr(sym), strings.Join(cryptoQuotes, ", "))
	}
	if !assetCode(base) || !assetCode(quote) {
		return Instrument{}, fmt.Errorf("symbol %s is not a crypto pair (BASE/QUOTE of letters and digits)", pystr.Repr(sym))
	}
	valued := false
	for _, q := range cryptoQuotes {
		valued = valued || quote == q
	}
	if !valued {
		return Instrument{}, fmt.Errorf("symbol %s is quoted in %s, which cannot be valued in USD", sym, quote)
	}
	return Instrument{Type: Crypto, Symbol: base + "/" + quote, Base: base, Quote: quote}, nil
}

// assetCode is 1–10 upper-case letters or digits, starting with a letter.
func assetCode(s string) bool {
	if len(s) == 0 || len(s) > 10 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// SymbolMultiplier is the multiplier a symbol's shape implies: 100 for an OCC option symbol,
// 1 otherwise (for orders and positions that carry no instrument type).
func SymbolMultiplier(symbol string) money.Amount {
	if _, err := ParseOCC(pystr.Upper(pystr.Strip(symbol))); err == nil {
		return OptionContractSize
	}
	return money.FromInt(1)
}

var errNotOCCShape = fmt.Errorf("not an OCC symbol")

// occShape is a cheap necessary condition of ParseOCC's success (a C or P before eight
// trailing digits), so equity symbols skip the full parse and its error.
func occShape(sym string) bool {
	n := len(sym)
	return n > 15 && (sym[n-9] == 'C' || sym[n-9] == 'P') && allDigits(sym[n-8:])
}

// slashPair reports a BASE/QUOTE symbol shaped like a currency pair: asset codes on both
// sides, the quote at least three characters ("ETH/BTC" is a pair, "BRK/B" a share class).
func slashPair(sym string) bool {
	base, quote, ok := strings.Cut(sym, "/")
	return ok && assetCode(base) && assetCode(quote) && len(quote) >= 3
}
