package live

import (
	"strings"

	"cockpit/live/jsonv"
)

// ChildOrdersFor is how many orders a broker created besides the parent, from the parent's
// order class and how many legs its reply lists: a bracket's take-profit and stop-loss, an
// OCO's or OTO's other leg are orders of their own and count for the day; the legs of a
// multi-leg option order ("mleg") are parts of the one order, and a simple order has none. A
// class not known here counts every listed leg (the day cap binds sooner, never later).
func ChildOrdersFor(class string, legs int) int {
	if legs <= 0 {
		return 0
	}
	switch strings.ToLower(strings.TrimSpace(class)) {
	case "simple", "mleg":
		return 0
	}
	return legs
}

// ChildOrders reads ChildOrdersFor from a broker's order reply (Alpaca's order object, or
// one under "order"): its order_class and its legs list. A reply without legs created none.
func ChildOrders(reply any) int {
	o, ok := reply.(*jsonv.Object)
	if !ok {
		return 0
	}
	if inner, ok := o.Value("order").(*jsonv.Object); ok && !o.Has("legs") {
		o = inner
	}
	legs, _ := o.Value("legs").([]any)
	class, _ := rowString(o, "order_class")
	return ChildOrdersFor(class, len(legs))
}
