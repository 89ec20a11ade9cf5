package main

import (
	"fmt"
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/mcpbroker"
)

// offered is one tool as the agent is offered it: plain_readonly, or gated under a broker.
type offered struct{ tool, wrapper, broker string }

// registryWrappingCase lists a server's tools through mcpbroker.Wrap (the registration the
// engine does) and compares what the agent sees: READ tools plain, WRITE and UNKNOWN gated
// under the broker key (the real broker's when the URL names one), none of those when halted.
// The reference lets a readOnlyHint of true make an unmapped tool READ; cockpit gates it
// (DV17), so the oracle's list with exactly those tools gated (or, halted, left out) is a
// deviation.
func registryWrappingCase(_ *env, c *jsonv.Object) outcome {
	key, _ := str(c, "server_key")
	u, _ := str(c, "url")
	halted, _ := get(c, "broker_halted").(bool)
	broker := mcpbroker.BrokerKey(key, u)
	curated := mcpbroker.Curated(mcpbroker.ProfileFor("", broker), broker)
	var tools []mcpbroker.ToolInfo
	hinted := map[string]bool{} // unmapped tools the server says are read-only
	list, _ := get(c, "tools").([]any)
	for _, raw := range list {
		t := obj(raw)
		name, _ := str(t, "name")
		hint, _ := t.Get("readOnlyHint")
		tools = append(tools, mcpbroker.ToolInfo{Name: name, ReadOnlyHint: hint})
		if _, mapped := curated.Tools[name]; hint == true && !mapped {
			hinted[name] = true
		}
	}
	var got []offered
	for _, w := range mcpbroker.Wrap(broker, curated, tools, halted) {
		o := offered{w.Tool.Name, "plain_readonly", ""}
		if w.Gated {
			o.wrapper, o.broker = "gated", w.Broker
		}
		got = append(got, o)
	}
	var want, dv17 []offered
	var changed []string
	wantList, _ := get(c, "expected").([]any)
	for _, raw := range wantList {
		e := obj(raw)
		tool, _ := str(e, "tool")
		wrapper, _ := str(e, "wrapper")
		b, _ := str(e, "broker")
		o := offered{tool, wrapper, b}
		want = append(want, o)
		if hinted[tool] && wrapper == "plain_readonly" {
			changed = append(changed, tool)
			if halted {
				continue
			}
			o = offered{tool, "gated", broker}
		}
		dv17 = append(dv17, o)
	}
	if diff := offeredDiff(got, want); diff == "" {
		return pass()
	} else if len(changed) > 0 && offeredDiff(got, dv17) == "" {
		return deviation("DV17", "hinted read-only by the server, gated by cockpit: %s", strings.Join(changed, ", "))
	} else {
		return failf("%s", diff)
	}
}

// offeredDiff names the first difference between two tool lists ("" when equal).
func offeredDiff(got, want []offered) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d tools offered, oracle %d", len(got), len(want))
	}
	for i, g := range got {
		if w := want[i]; g != w {
			return fmt.Sprintf("tool %d: %s %s broker %q, oracle %s %s broker %q", i, g.tool, g.wrapper, g.broker, w.tool, w.wrapper, w.broker)
		}
	}
	return ""
}
