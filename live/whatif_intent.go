package live

import (
	"slices"

	"cockpit/live/jsonv"
)

// intentKeys are the intent members intentFrom reads, and "$float" (an intent holding one may
// be a {"$float": …} number, not an object: IntentFromMembers leaves it to the parser).
var intentKeys = [...]string{"symbol", "side", "notional_usd", "quantity", "limit_price", "instrument_type", "asset_class", "$float"}

const intentFloat = len(intentKeys) - 1

// IntentKeys are the names IntentFromMembers wants the members of, in its order (a copy).
func IntentKeys() []string { return slices.Clone(intentKeys[:]) }

// IntentFromMembers is IntentFromJSON of a what-if's plain intent object (its strict parse,
// {"$float": …} decoded, as WhatIfFromMembers is handed it), read from the members' texts
// that jsonv.Plain (Members, or MembersNested for an object inside a document) handed back
// for IntentKeys, without building the object: spans[i] and found[i] are those of
// IntentKeys()[i]. ok is false when there is a "$float" member: the caller then parses it.
func IntentFromMembers(spans []string, found []bool) (in OrderIntent, ok bool) {
	if found[intentFloat] {
		return OrderIntent{}, false
	}
	ok = true
	in = intentFrom(func(key string) (any, bool) {
		for i, k := range intentKeys {
			if k != key {
				continue
			}
			if !found[i] {
				return nil, false
			}
			v, parsed := jsonv.PlainValue(spans[i])
			ok = ok && parsed
			return decodeFloatsShared(v), true
		}
		return nil, false
	})
	return in, ok
}
