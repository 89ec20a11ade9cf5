package main

import (
	"cockpit/live/jsonv"
	"cockpit/live/mcpbroker"
)

// registryWrappingCase lists a server's tools through mcpbroker.Wrap (the registration the
// engine does) and compares what the agent sees: READ tools plain, WRITE and UNKNOWN gated
// under the broker key (the real broker's when the URL names one), none of those when halted.
func registryWrappingCase(_ *env, c *jsonv.Object) outcome {
	key, _ := str(c, "server_key")
	u, _ := str(c, "url")
	halted, _ := get(c, "broker_halted").(bool)
	broker := mcpbroker.BrokerKey(key, u)
	var tools []mcpbroker.ToolInfo
	list, _ := get(c, "tools").([]any)
	for _, raw := range list {
		t := obj(raw)
		name, _ := str(t, "name")
		hint, _ := t.Get("readOnlyHint")
		tools = append(tools, mcpbroker.ToolInfo{Name: name, ReadOnlyHint: hint})
	}
	got := mcpbroker.Wrap(broker, mcpbroker.Curated(mcpbroker.ProfileFor("", broker), broker), tools, halted)
	want, _ := get(c, "expected").([]any)
	if len(got) != len(want) {
		return failf("%d tools offered, oracle %d", len(got), len(want))
	}
	for i, w := range got {
		e := obj(want[i])
		tool, _ := str(e, "tool")
		wrapper, _ := str(e, "wrapper")
		wantBroker, _ := str(e, "broker")
		gotWrapper, gotBroker := "plain_readonly", ""
		if w.Gated {
			gotWrapper, gotBroker = "gated", w.Broker
		}
		if w.Tool.Name != tool || gotWrapper != wrapper || gotBroker != wantBroker {
			return failf("tool %d: %s %s broker %q, oracle %s %s broker %q", i, w.Tool.Name, gotWrapper, gotBroker, tool, wrapper, wantBroker)
		}
	}
	return pass()
}
