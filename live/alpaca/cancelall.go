package alpaca

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"cockpit/live"
)

// CancelResult is Alpaca's answer for one order of a cancel-all.
type CancelResult struct {
	OrderID string
	Status  int    // the per-order HTTP status: 200 cancelled
	Err     string // Alpaca's message when Status is not 200
}

// CancelAll cancels every open order (DELETE /v2/orders) and returns Alpaca's 207
// multi-status result per order. The SDK's CancelAllOrders drops that body (and leaves it
// unclosed), so this one request is made with the same client, URL, keys and timeout the SDK
// calls use. The error joins the orders that were not cancelled.
func (b *Broker) CancelAll(ctx context.Context) ([]CancelResult, error) {
	c, err := b.newCall(ctx)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodDelete, b.cfg.BaseURL+"/v2/orders", nil)
	if err != nil {
		return nil, live.Transport(err)
	}
	hc := &http.Client{Timeout: b.cfg.Timeout, Transport: c.rt}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, b.done(c, err, false)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err == nil && resp.StatusCode >= 300 {
		err = fmt.Errorf("%s (HTTP %d)", body, resp.StatusCode)
	}
	if err = b.done(c, err, false); err != nil {
		return nil, err
	}
	var raw []struct {
		ID     string          `json:"id"`
		Status int             `json:"status"`
		Body   json.RawMessage `json:"body"`
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &raw); err != nil {
			return nil, live.Transport(fmt.Errorf("cancel-all reply: %w", err))
		}
	}
	out := make([]CancelResult, 0, len(raw))
	failed := 0
	for _, r := range raw {
		cr := CancelResult{OrderID: r.ID, Status: r.Status}
		if r.Status != http.StatusOK {
			var msg struct {
				Message string `json:"message"`
			}
			json.Unmarshal(r.Body, &msg)
			cr.Err = msg.Message
			if cr.Err == "" {
				cr.Err = http.StatusText(r.Status)
			}
			failed++
		}
		out = append(out, cr)
	}
	if failed > 0 {
		return out, live.Rejected(fmt.Sprintf("%d of %d orders were not cancelled", failed, len(out)))
	}
	return out, nil
}
