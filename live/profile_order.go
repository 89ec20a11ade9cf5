package live

import "errors"

// errNoSize refuses a typed order without a size.
var errNoSize = errors.New("the order has neither a quantity nor a notional")

func orderType(req OrderRequest) OrderType {
	if req.Type == "" {
		return Market
	}
	return req.Type
}
