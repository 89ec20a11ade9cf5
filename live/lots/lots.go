// Package lots matches fills against open lots first in, first out (FIFO) and reports the
// round trips they close, with exact decimals: one symbol's book at a time, no I/O.
//
// A book's lots all have the same sign (long > 0, short < 0). A fill on the other side closes
// the oldest lots first; what it does not close opens a lot on its own side (a flip). Fees ride
// with the quantity they paid for: a lot carries the opening fee of what is still open, and a
// round trip takes its share of the opening and the closing fee (the last share takes what is
// left, so no fee is lost to rounding).
package lots

import (
	"errors"
	"fmt"
	"time"

	"cockpit/live/money"
)

// Lot is an open piece of a position.
type Lot struct {
	Seq   int64 // the fill that opened it (its audit event)
	Time  time.Time
	Qty   money.Amount // signed: long > 0, short < 0
	Price money.Amount
	Fee   money.Amount // the opening fee still carried by Qty
}

// Fill is one execution applied to a book.
type Fill struct {
	Seq   int64
	Time  time.Time
	Side  string // buy or sell
	Qty   money.Amount
	Price money.Amount
	Fee   money.Amount
}

// Trip is one round trip: a part of a lot opened by one fill and closed by another.
type Trip struct {
	Qty        money.Amount // positive
	Long       bool
	OpenSeq    int64
	CloseSeq   int64
	OpenTime   time.Time
	CloseTime  time.Time
	OpenPrice  money.Amount
	ClosePrice money.Amount
	Fees       money.Amount // the opening and the closing fee of this part
	Gross      money.Amount // (close − open) × qty, sign-adjusted for a short
	Net        money.Amount // Gross − Fees
}

// Result is what applying a fill did to a book.
type Result struct {
	Trips  []Trip
	Left   []Lot // the given lots after the fill, oldest first (the closed ones gone)
	Opened *Lot  // the lot the fill opened with what it did not close (nil when none)
	// The change to the book's totals: signed quantity, cost (Σ qty × price) and carried fees.
	DQty, DCost, DFee money.Amount
}

// Realized is the net P&L of the result's round trips.
func (r Result) Realized() money.Amount {
	sum := money.Zero
	for _, t := range r.Trips {
		sum = sum.Add(t.Net)
	}
	return sum
}

// Errors of Apply.
var (
	ErrFill  = errors.New("unusable fill")
	ErrMixed = errors.New("the book holds an empty lot, or long and short lots at once")
)

// Apply matches f against lots, the book's open lots oldest first (a caller may pass only the
// oldest ones, as long as they cover f's quantity: the others are untouched).
func Apply(lots []Lot, f Fill) (Result, error) {
	sign, err := fillSign(f)
	if err != nil {
		return Result{}, err
	}
	for _, l := range lots {
		if l.Qty.Sign() == 0 || (l.Qty.Sign() != lots[0].Qty.Sign()) {
			return Result{}, ErrMixed
		}
	}
	signed := f.Qty
	if sign < 0 {
		signed = signed.Neg()
	}
	res := Result{DQty: signed}
	if len(lots) == 0 || lots[0].Qty.Sign() == sign { // opens, or adds to the position
		res.Left = append([]Lot(nil), lots...)
		res.Opened = &Lot{Seq: f.Seq, Time: f.Time, Qty: signed, Price: f.Price, Fee: f.Fee}
		res.DCost, res.DFee = signed.Mul(f.Price), f.Fee
		return res, nil
	}
	closeFills(lots, f, &res)
	return res, nil
}

// fillSign is +1 for a buy, -1 for a sell; an unusable fill is an error.
func fillSign(f Fill) (int, error) {
	if f.Qty.Sign() <= 0 || f.Qty.IsInf() {
		return 0, fmt.Errorf("%w: quantity %s", ErrFill, f.Qty)
	}
	if f.Price.Sign() <= 0 || f.Price.IsInf() {
		return 0, fmt.Errorf("%w: price %s", ErrFill, f.Price)
	}
	switch f.Side {
	case "buy":
		return 1, nil
	case "sell":
		return -1, nil
	}
	return 0, fmt.Errorf("%w: side %q", ErrFill, f.Side)
}

// closeFills closes lots oldest first with f (which is on the other side) into res.
func closeFills(lots []Lot, f Fill, res *Result) {
	rest, feeLeft := f.Qty, f.Fee
	for i, l := range lots {
		if rest.Sign() == 0 {
			res.Left = append(res.Left, lots[i:]...)
			break
		}
		open := l.Qty.Abs()
		m := money.Min(open, rest)
		openFee := l.Fee
		if m.Cmp(open) < 0 {
			openFee = l.Fee.Mul(m).Div(open)
		}
		closeFee := feeLeft
		if m.Cmp(rest) < 0 {
			closeFee = f.Fee.Mul(m).Div(f.Qty)
		}
		feeLeft, rest = feeLeft.Sub(closeFee), rest.Sub(m)
		res.Trips = append(res.Trips, trip(l, f, m, openFee.Add(closeFee)))
		signedM := m
		if l.Qty.Sign() < 0 {
			signedM = m.Neg()
		}
		res.DCost = res.DCost.Sub(signedM.Mul(l.Price))
		res.DFee = res.DFee.Sub(openFee)
		if m.Cmp(open) < 0 {
			l.Qty, l.Fee = l.Qty.Sub(signedM), l.Fee.Sub(openFee)
			res.Left = append(res.Left, l)
		}
	}
	if rest.Sign() > 0 { // a flip: the rest opens a lot on the fill's side
		q := rest
		if f.Side == "sell" {
			q = q.Neg()
		}
		res.Opened = &Lot{Seq: f.Seq, Time: f.Time, Qty: q, Price: f.Price, Fee: feeLeft}
		res.DCost, res.DFee = res.DCost.Add(q.Mul(f.Price)), res.DFee.Add(feeLeft)
	}
}

// trip is the round trip of m of lot l closed by f, with fees its share of both fees.
func trip(l Lot, f Fill, m, fees money.Amount) Trip {
	long := l.Qty.Sign() > 0
	gross := f.Price.Sub(l.Price).Mul(m)
	if !long {
		gross = gross.Neg()
	}
	return Trip{Qty: m, Long: long, OpenSeq: l.Seq, CloseSeq: f.Seq, OpenTime: l.Time, CloseTime: f.Time,
		OpenPrice: l.Price, ClosePrice: f.Price, Fees: fees, Gross: gross, Net: gross.Sub(fees)}
}

// Unrealized is an open position's P&L at mark: qty × mark − cost − the fees it carries.
func Unrealized(qty, cost, fee, mark money.Amount) money.Amount {
	return qty.Mul(mark).Sub(cost).Sub(fee)
}
