package config

// Alpaca holds the fields of a kind = "alpaca" broker table.
type Alpaca struct{}

// validate checks the Alpaca fields of [field].
func (a Alpaca) validate(field string) error { return nil }
