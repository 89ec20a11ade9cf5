package live

import "context"

// ReasonFleetUnavailable denies an order when a fleet is configured but its day count cannot
// be read or a slot cannot be reserved: an order is never sent uncounted.
const ReasonFleetUnavailable Reason = "fleet_unavailable"

// DayReserver is a day count shared by several hosts (a fleet). Reserve takes one slot of
// broker's count for day (a UTC day, "2006-01-02") before the order is checked and sent, and
// returns the count before the slot (the order's place in the day); Release gives the slot
// back when the order was not sent or the broker rejected it. An indeterminate order keeps
// its slot. An error means the count is unknown: the gate denies fleet_unavailable.
type DayReserver interface {
	Reserve(ctx context.Context, broker, day string) (int, error)
	Release(ctx context.Context, broker, day string) error
}

// SentCounter is a DayReserver that can also count an order the broker already has (a
// bracket's leg, created with an accepted order): its slot is never given back, and a write
// whose answer was lost leaves the count as it is (only ever high).
type SentCounter interface {
	CountSent(ctx context.Context, broker, day string) error
}

// DayCounter is a DayReserver whose count can be read without taking a slot: a dry run of the
// gate (a what-if, the check before a review) reads it.
type DayCounter interface {
	Count(ctx context.Context, broker, day string) (int, error)
}

// SlotReserver is a DayReserver told the day's cap (limit; 0 or less: none known). It may take
// slots ahead in a block (a lease) while the day is far from the cap and hand them out without
// a round trip; every slot it hands out lies below the cap it was told, so the cap stays
// exact across the fleet. It returns the slot's place in the day and the function that gives
// that slot back (the order was not sent, or the broker rejected it).
type SlotReserver interface {
	ReserveSlot(ctx context.Context, broker, day string, limit int) (int, func(context.Context) error, error)
}
