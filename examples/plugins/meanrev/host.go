//go:build wasip1

package main

import (
	"encoding/json"
	"unsafe"
)

// The cockpit host module (see engine/agents/wasmplugin/doc.go for the ABI).

//go:wasmimport cockpit now
func hostNow() int64

//go:wasmimport cockpit bars
func hostBars(sym unsafe.Pointer, symLen uint32, count int32) int32

//go:wasmimport cockpit positions
func hostPositions() int32

//go:wasmimport cockpit open_orders
func hostOpenOrders() int32

//go:wasmimport cockpit call_tool
func hostCallTool(name unsafe.Pointer, nameLen uint32, args unsafe.Pointer, argsLen uint32) int32

//go:wasmimport cockpit result
func hostResult(buf unsafe.Pointer, bufCap uint32) int32

//go:wasmimport cockpit log
func hostLog(msg unsafe.Pointer, msgLen uint32)

// result is what every host read and tool call returns: the engine's structured result.
type result struct {
	Status   string          `json:"status"`
	Decision string          `json:"decision"`
	Reason   string          `json:"reason_code"`
	Detail   string          `json:"detail"`
	Data     json.RawMessage `json:"data"`
}

func ptr(s string) (unsafe.Pointer, uint32) {
	if len(s) == 0 {
		return nil, 0
	}
	return unsafe.Pointer(unsafe.StringData(s)), uint32(len(s))
}

// fetch copies the host's last result (n bytes) into a buffer and decodes it.
func fetch(n int32) (result, bool) {
	var r result
	if n <= 0 {
		return r, false
	}
	buf := make([]byte, n)
	if got := hostResult(unsafe.Pointer(&buf[0]), uint32(n)); got != n {
		return r, false
	}
	return r, json.Unmarshal(buf, &r) == nil
}

func logf(s string) {
	p, n := ptr(s)
	hostLog(p, n)
}

func bars(sym string, count int32) (result, bool) {
	p, n := ptr(sym)
	return fetch(hostBars(p, n, count))
}

func positions() (result, bool) { return fetch(hostPositions()) }

func callTool(name string, args any) (result, bool) {
	b, err := json.Marshal(args)
	if err != nil {
		return result{}, false
	}
	np, nn := ptr(name)
	return fetch(hostCallTool(np, nn, unsafe.Pointer(&b[0]), uint32(len(b))))
}
