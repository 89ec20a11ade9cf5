package live

import (
	"errors"
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// errNoSize refuses a typed order without a size.
var errNoSize = errors.New("the order has neither a quantity nor a notional")

// buildAlpacaOrder is a typed order as place_stock_order (or place_crypto_order for a pair)
// arguments, with our client order id so an indeterminate submit can be looked up.
func buildAlpacaOrder(req OrderRequest) (string, *jsonv.Object, error) {
	tool := "place_stock_order"
	args := jsonv.ObjectOf("symbol", req.Symbol, "side", req.Side)
	if err := sizeArgs(args, req, "qty", "notional"); err != nil {
		return "", nil, err
	}
	args.Set("type", string(orderType(req)))
	for _, f := range []struct {
		key string
		v   *money.Amount
	}{{"limit_price", req.LimitPrice}, {"stop_price", req.StopPrice}, {"trail_price", req.TrailAmount}, {"trail_percent", req.TrailPercent}} {
		if f.v != nil {
			args.Set(f.key, f.v.String())
		}
	}
	if strings.Contains(req.Symbol, "/") {
		tool = "place_crypto_order"
		args.Set("time_in_force", "gtc")
	} else {
		args.Set("time_in_force", "day")
	}
	if req.ClientOrderID != "" {
		args.Set("client_order_id", req.ClientOrderID)
	}
	return tool, args, nil
}

// buildRobinhoodOrder is a typed order as place_equity_order arguments.
func buildRobinhoodOrder(req OrderRequest) (string, *jsonv.Object, error) {
	if req.Type.Triggered() { // its stop arguments are not known here: never sent as something else
		return "", nil, errors.New("the robinhood profile does not map " + string(req.Type) + " orders")
	}
	args := jsonv.ObjectOf("symbol", req.Symbol, "side", req.Side, "instrument_type", string(Equity))
	if err := sizeArgs(args, req, "quantity", "notional_usd"); err != nil {
		return "", nil, err
	}
	args.Set("order_type", string(orderType(req)))
	if req.LimitPrice != nil {
		args.Set("limit_price", req.LimitPrice.String())
	}
	return "place_equity_order", args, nil
}

func sizeArgs(args *jsonv.Object, req OrderRequest, qtyKey, notionalKey string) error {
	switch {
	case req.Quantity != nil:
		args.Set(qtyKey, req.Quantity.String())
	case req.Notional != nil:
		args.Set(notionalKey, req.Notional.String())
	default:
		return errNoSize
	}
	return nil
}

func orderType(req OrderRequest) OrderType {
	if req.Type == "" {
		return Market
	}
	return req.Type
}
