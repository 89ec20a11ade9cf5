package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cockpit/readmodel"

	"cockpit/live/jsonv"
)

// toolsJSON is the status view of a broker server's tools: name, class, whether the agent's
// call goes through the gate, and whether the server hints it read-only (DV17: not trusted).
func toolsJSON(tools []readmodel.BrokerTool) []any {
	out := make([]any, 0, len(tools))
	for _, t := range tools {
		out = append(out, jsonv.ObjectOf("name", t.Name, "class", string(t.Class), "gated", t.Class.IsWrite(),
			"server_hint_read_only", t.Hinted))
	}
	return out
}

// plainToolName is a tool name printed as it is; any other is quoted (a server's name is
// outside text and may carry control characters).
var plainToolName = regexp.MustCompile(`^[A-Za-z0-9_./-]{1,128}$`)

// toolLines are the status lines of a link's tools: those the agent calls without the gate,
// then the gated ones with their class ("" lines when the link listed none).
func toolLines(b *jsonv.Object) []string {
	l := obj(b, "link")
	if l == nil {
		return nil
	}
	raw, ok := l.Get("tools")
	list, _ := raw.([]any)
	if !ok {
		return nil
	}
	var read, gated []string
	for _, v := range list {
		t, _ := v.(*jsonv.Object)
		if t == nil {
			continue
		}
		n, _ := t.Get("name")
		name, _ := n.(string)
		if !plainToolName.MatchString(name) {
			name = strconv.QuoteToASCII(name)
		}
		class, _ := t.Get("class")
		if g, _ := t.Get("gated"); g == false {
			read = append(read, name)
			continue
		}
		note := fmt.Sprint(class)
		if h, _ := t.Get("server_hint_read_only"); h == true {
			note += ", the server says read-only: not trusted"
		}
		gated = append(gated, fmt.Sprintf("%s (%s)", name, note))
	}
	return []string{
		fmt.Sprintf("Tools:     %d READ, called by the agent without the gate: %s", len(read), orNone(read)),
		fmt.Sprintf("           %d through the gate: %s", len(gated), orNone(gated)),
	}
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
