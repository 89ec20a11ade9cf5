package live

import (
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// AppendJSON appends the verdict line JSON() renders, in compact form, without building the
// object: the same bytes as jsonv.Marshal(r.JSON(), jsonv.Compact), for `check --batch`.
func (r WhatIfResult) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = jsonv.AppendPlainString(b, r.ID)
	b = append(b, `,"verdict":`...)
	b = jsonv.AppendPlainString(b, string(r.Verdict))
	br := r.Breach
	if br == nil {
		b = append(b, `,"kind":null,"limit":null,"limit_value":null,"attempted_value":null,"overage":null,"detail":null`...)
		return append(r.appendLoss(b), '}')
	}
	b = append(b, `,"kind":`...)
	b = jsonv.AppendPlainString(b, string(br.Kind))
	if br.Limit == "" {
		b = append(b, `,"limit":null,"limit_value":null,"attempted_value":null,"overage":null`...)
	} else {
		b = append(b, `,"limit":`...)
		b = jsonv.AppendPlainString(b, br.Limit)
		b = append(b, `,"limit_value":`...)
		b = appendAmount(b, br.LimitValue)
		b = append(b, `,"attempted_value":`...)
		b = appendAmount(b, br.Attempted)
		b = append(b, `,"overage":`...)
		b = appendAmount(b, br.Overage())
	}
	b = append(b, `,"detail":`...)
	b = jsonv.AppendPlainString(b, br.Detail)
	if br.Cause != "" {
		b = append(b, `,"cause":`...)
		b = jsonv.AppendPlainString(b, br.Cause)
	}
	return append(r.appendLoss(b), '}')
}

// appendLoss appends the loss limits member, when the mandate sets any.
func (r WhatIfResult) appendLoss(b []byte) []byte {
	if r.Loss == nil {
		return b
	}
	b = append(b, `,"loss_limits":`...)
	return append(b, jsonv.MustMarshal(r.Loss.JSON(), jsonv.Compact)...)
}

// appendAmount is EncodeAmount, compact.
func appendAmount(b []byte, a money.Amount) []byte {
	switch {
	case a.IsInf() && a.Sign() > 0:
		return append(b, `{"$float":"inf"}`...)
	case a.IsInf():
		return append(b, `{"$float":"-inf"}`...)
	}
	return append(b, a.String()...)
}
