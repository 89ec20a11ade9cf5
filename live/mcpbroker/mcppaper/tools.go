package mcppaper

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

func num(a money.Amount) jsonv.Number { return jsonv.Number(a.String()) }

func str(args *jsonv.Object, key string) string {
	s, _ := args.Value(key).(string)
	return s
}

// amount reads the first present of keys; absent is nil, unusable is an error.
func amount(args *jsonv.Object, keys ...string) (*money.Amount, error) {
	for _, k := range keys {
		v, ok := args.Get(k)
		if !ok || v == nil {
			continue
		}
		a, err := live.DecimalFromJSON(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		return &a, nil
	}
	return nil, nil
}

// order turns place-tool arguments into a paper order request.
func order(args *jsonv.Object, qtyKeys, notionalKeys []string, typeKey string) (live.OrderRequest, error) {
	req := live.OrderRequest{Symbol: strings.ToUpper(str(args, "symbol")), Side: strings.ToLower(str(args, "side")),
		Type: live.Market, ClientOrderID: str(args, "client_order_id")}
	var err error
	if req.Quantity, err = amount(args, qtyKeys...); err != nil {
		return req, err
	}
	if req.Notional, err = amount(args, notionalKeys...); err != nil {
		return req, err
	}
	if req.LimitPrice, err = amount(args, "limit_price"); err != nil {
		return req, err
	}
	switch t := strings.ToLower(str(args, typeKey)); t {
	case "", "market":
	case "limit":
		req.Type = live.Limit
	default:
		return req, fmt.Errorf("order type %q is not supported by the paper server", t)
	}
	return req, nil
}

func orderJSON(o live.Order) *jsonv.Object {
	out := jsonv.ObjectOf("id", o.ID, "order_id", o.ID, "client_order_id", o.ClientOrderID, "symbol", o.Symbol,
		"side", o.Side, "type", string(o.Type), "status", string(o.Status), "filled_qty", num(o.FilledQty),
		"filled_avg_price", num(o.AvgFillPrice))
	if o.Quantity != nil {
		out.Set("qty", num(*o.Quantity))
	}
	if o.Notional != nil {
		out.Set("notional", num(*o.Notional))
	}
	return out
}

func positionRows(ctx context.Context, b live.Broker, qtyKey, avgKey string) ([]any, error) {
	ps, err := b.Positions(ctx)
	if err != nil {
		return nil, err
	}
	rows := []any{}
	for _, p := range ps {
		if p.Qty.IsZero() {
			continue
		}
		side := "long"
		if p.Qty.Sign() < 0 {
			side = "short"
		}
		rows = append(rows, jsonv.ObjectOf("symbol", p.Symbol, qtyKey, num(p.Qty), "market_value", num(p.MarketValue),
			avgKey, num(p.AvgPrice), "side", side, "unrealized_pl", num(p.UnrealizedPnL)))
	}
	return rows, nil
}

func account(ctx context.Context, b live.Broker) (any, error) {
	a, err := b.Account(ctx)
	if err != nil {
		return nil, err
	}
	return jsonv.ObjectOf("cash", num(a.Cash), "equity", num(a.Equity), "buying_power", num(a.BuyingPower)), nil
}

func openOrders(ctx context.Context, b live.Broker) ([]any, error) {
	os, err := b.OpenOrders(ctx)
	if err != nil {
		return nil, err
	}
	rows := []any{}
	for _, o := range os {
		rows = append(rows, orderJSON(o))
	}
	return rows, nil
}

func place(ctx context.Context, b live.Broker, req live.OrderRequest) (any, error) {
	o, err := b.PlaceOrder(ctx, req)
	if err != nil {
		return nil, err
	}
	return orderJSON(o), nil
}

var errOrderID = errors.New("order_id is required")

func cancel(ctx context.Context, b live.Broker, args *jsonv.Object) (any, error) {
	id := str(args, "order_id")
	if id == "" {
		return nil, errOrderID
	}
	if err := b.CancelOrder(ctx, id); err != nil {
		return nil, err
	}
	return jsonv.ObjectOf("order_id", id, "status", "cancelled"), nil
}

func robinhoodTools(b live.Broker) []tool {
	return []tool{
		{name: "get_equity_quotes", read: true, props: []string{"symbol"}, run: func(ctx context.Context, a *jsonv.Object) (any, error) {
			q, err := b.Quote(ctx, strings.ToUpper(str(a, "symbol")))
			if err != nil {
				return nil, err
			}
			return jsonv.ObjectOf("results", []any{jsonv.ObjectOf("symbol", q.Symbol, "last_price", num(q.Last),
				"bid", num(q.Bid), "ask", num(q.Ask))}), nil
		}},
		{name: "get_equity_positions", read: true, run: func(ctx context.Context, _ *jsonv.Object) (any, error) {
			rows, err := positionRows(ctx, b, "quantity", "average_buy_price")
			return jsonv.ObjectOf("positions", rows), err
		}},
		{name: "get_portfolio", read: true, run: func(ctx context.Context, _ *jsonv.Object) (any, error) { return account(ctx, b) }},
		{name: "get_accounts", read: true, run: func(ctx context.Context, _ *jsonv.Object) (any, error) { return account(ctx, b) }},
		{name: "get_equity_orders", read: true, run: func(ctx context.Context, _ *jsonv.Object) (any, error) {
			rows, err := openOrders(ctx, b)
			return jsonv.ObjectOf("data", rows), err
		}},
		{name: "place_equity_order", props: []string{"symbol", "side", "quantity", "notional_usd", "instrument_type", "order_type", "limit_price"},
			run: func(ctx context.Context, a *jsonv.Object) (any, error) {
				req, err := order(a, []string{"quantity", "qty", "shares"}, []string{"notional_usd", "notional"}, "order_type")
				if err != nil {
					return nil, err
				}
				return place(ctx, b, req)
			}},
		{name: "cancel_equity_order", props: []string{"order_id"}, run: func(ctx context.Context, a *jsonv.Object) (any, error) { return cancel(ctx, b, a) }},
	}
}

func alpacaTools(b live.Broker) []tool {
	quote := func(ctx context.Context, a *jsonv.Object) (any, error) {
		sym := strings.ToUpper(str(a, "symbol"))
		q, err := b.Quote(ctx, sym)
		if err != nil {
			return nil, err
		}
		return jsonv.ObjectOf("symbol", sym, "quote", jsonv.ObjectOf("ask_price", num(q.Ask), "bid_price", num(q.Bid))), nil
	}
	placeKeys := []string{"symbol", "side", "qty", "notional", "type", "time_in_force", "limit_price", "stop_price", "client_order_id", "order_class", "extended_hours"}
	return []tool{
		{name: "get_stock_latest_quote", read: true, props: []string{"symbol"}, run: quote},
		{name: "get_crypto_latest_quote", read: true, props: []string{"symbol"}, run: quote},
		{name: "get_option_latest_quote", read: true, props: []string{"symbol"}, run: quote},
		{name: "get_all_positions", read: true, run: func(ctx context.Context, _ *jsonv.Object) (any, error) {
			return positionRows(ctx, b, "qty", "avg_entry_price")
		}},
		{name: "get_account_info", read: true, run: func(ctx context.Context, _ *jsonv.Object) (any, error) { return account(ctx, b) }},
		{name: "get_orders", read: true, props: []string{"status"}, run: func(ctx context.Context, _ *jsonv.Object) (any, error) { return openOrders(ctx, b) }},
		{name: "get_order_by_client_id", read: true, props: []string{"client_order_id"}, run: func(ctx context.Context, a *jsonv.Object) (any, error) {
			o, err := b.OrderByClientID(ctx, str(a, "client_order_id"))
			if err != nil {
				return nil, err
			}
			return orderJSON(o), nil
		}},
		{name: "get_order_by_id", read: true, props: []string{"order_id"}, run: func(ctx context.Context, a *jsonv.Object) (any, error) {
			ob, ok := b.(interface {
				OrderByID(context.Context, string) (live.Order, error)
			})
			if !ok {
				return nil, errors.New("this paper server cannot read orders by id")
			}
			o, err := ob.OrderByID(ctx, str(a, "order_id"))
			if err != nil {
				return nil, err
			}
			return orderJSON(o), nil
		}},
		{name: "place_stock_order", props: placeKeys, run: func(ctx context.Context, a *jsonv.Object) (any, error) {
			req, err := order(a, []string{"qty"}, []string{"notional"}, "type")
			if err != nil {
				return jsonv.ObjectOf("error", jsonv.ObjectOf("message", err.Error(), "http_status", jsonv.Number("422"))), nil
			}
			o, err := b.PlaceOrder(ctx, req)
			if err != nil {
				return jsonv.ObjectOf("error", jsonv.ObjectOf("message", err.Error(), "http_status", jsonv.Number("403"))), nil
			}
			return orderJSON(o), nil
		}},
		{name: "place_crypto_order", props: placeKeys, run: func(context.Context, *jsonv.Object) (any, error) {
			return jsonv.ObjectOf("error", jsonv.ObjectOf("message", "the paper server trades no crypto", "http_status", jsonv.Number("422"))), nil
		}},
		{name: "place_option_order", props: append(placeKeys, "legs", "position_intent"), run: func(context.Context, *jsonv.Object) (any, error) {
			return jsonv.ObjectOf("error", jsonv.ObjectOf("message", "the paper server trades no options", "http_status", jsonv.Number("422"))), nil
		}},
		{name: "cancel_order_by_id", props: []string{"order_id"}, run: func(ctx context.Context, a *jsonv.Object) (any, error) { return cancel(ctx, b, a) }},
		{name: "cancel_all_orders", run: func(ctx context.Context, _ *jsonv.Object) (any, error) {
			os, err := b.OpenOrders(ctx)
			if err != nil {
				return nil, err
			}
			for _, o := range os {
				if err := b.CancelOrder(ctx, o.ID); err != nil {
					return nil, err
				}
			}
			return jsonv.ObjectOf("cancelled", jsonv.Number(fmt.Sprint(len(os)))), nil
		}},
		{name: "close_all_positions", run: func(ctx context.Context, _ *jsonv.Object) (any, error) {
			ps, err := b.Positions(ctx)
			if err != nil {
				return nil, err
			}
			var out []any
			for _, p := range ps {
				if p.Qty.IsZero() {
					continue
				}
				side, q := live.Sell, p.Qty.Abs()
				if p.Qty.Sign() < 0 {
					side = live.Buy
				}
				o, err := b.PlaceOrder(ctx, live.OrderRequest{Symbol: p.Symbol, Side: side, Type: live.Market, Quantity: &q, ReduceOnly: true})
				if err != nil {
					return nil, err
				}
				out = append(out, orderJSON(o))
			}
			return jsonv.ObjectOf("orders", out), nil
		}},
	}
}
