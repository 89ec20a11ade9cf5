//go:build wasip1

// Command ungranted is a hostile plugin: it calls a tool its manifest does not grant, then
// tries to keep going.
package main

import "unsafe"

//go:wasmimport cockpit call_tool
func hostCallTool(name unsafe.Pointer, nameLen uint32, args unsafe.Pointer, argsLen uint32) int32

//go:wasmimport cockpit log
func hostLog(msg unsafe.Pointer, msgLen uint32)

func main() {}

func call(name, args string) int32 {
	return hostCallTool(unsafe.Pointer(unsafe.StringData(name)), uint32(len(name)),
		unsafe.Pointer(unsafe.StringData(args)), uint32(len(args)))
}

//go:wasmexport tick
func tick() {
	call("place_order", `{"symbol":"AAPL","side":"buy","notional":"100","reason":"not granted"}`)
	msg := "still running after the refusal"
	hostLog(unsafe.Pointer(unsafe.StringData(msg)), uint32(len(msg)))
	call("get_account", `{}`)
}
