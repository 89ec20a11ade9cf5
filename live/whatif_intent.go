package live

import (
	"slices"

	"cockpit/live/jsonv"
)

// intentKeys are the intent members intentFrom reads, and "$float" (an intent holding one may
// be a {"$float": …} number, not an object: IntentFromPlain leaves it to the parser).
var intentKeys = [...]string{"symbol", "side", "notional_usd", "quantity", "limit_price", "instrument_type", "asset_class", "$float"}

const intentFloat = len(intentKeys) - 1

// IntentKeys are the names IntentFromMembers wants the members of, in its order (a copy).
func IntentKeys() []string { return slices.Clone(intentKeys[:]) }

// IntentFromPlain is IntentFromJSON of the object a what-if's plain intent text gives (its
// strict parse, {"$float": …} decoded, as WhatIfFromMembers is handed it), read from the
// members' texts without building the object; pl scans the text. ok is false when the text
// is not a plain object, or has a "$float" member: the caller then parses it.
func IntentFromPlain(pl *jsonv.Plain, text string) (in OrderIntent, ok bool) {
	var spans [len(intentKeys)]string
	var found [len(intentKeys)]bool
	if text == "" || text[0] != '{' || !pl.Members(text, intentKeys[:], spans[:], found[:]) {
		return OrderIntent{}, false
	}
	return IntentFromMembers(spans[:], found[:])
}

// IntentFromMembers is IntentFromPlain of a plain object whose members jsonv.Plain (Members,
// or MembersNested for an object inside a document) handed back for IntentKeys: spans[i] and
// found[i] are those of IntentKeys()[i]. ok is false when there is a "$float" member.
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
