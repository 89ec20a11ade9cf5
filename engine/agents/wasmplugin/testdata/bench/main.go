//go:build wasip1

// Command bench measures the host calls: spin_now calls now() n times, spin_quote calls
// quote("AAPL") n times and reads each result. Its tick logs what its clocks say (WASI's
// and the host's now) and a line with a credential in it, then floods the log.
package main

import (
	"strconv"
	"time"
	"unsafe"
)

//go:wasmimport cockpit log
func hostLog(msg unsafe.Pointer, msgLen uint32)

func logs(s string) { hostLog(unsafe.Pointer(unsafe.StringData(s)), uint32(len(s))) }

//go:wasmimport cockpit now
func hostNow() int64

//go:wasmimport cockpit quote
func hostQuote(sym unsafe.Pointer, symLen uint32) int32

//go:wasmimport cockpit result
func hostResult(buf unsafe.Pointer, bufCap uint32) int32

func main() {}

var sink int64
var buf [4096]byte

//go:wasmexport tick
func tick() {
	logs("wasi=" + strconv.FormatInt(time.Now().UnixNano(), 10) + " host=" + strconv.FormatInt(hostNow(), 10))
	logs("token sk-abcdefghijklmnopqrstuvwxyz0123456789 leaked")
	for i := 0; i < 50; i++ {
		logs("flood")
	}
}

//go:wasmexport spin_now
func spinNow(n int32) {
	for i := int32(0); i < n; i++ {
		sink += hostNow()
	}
}

//go:wasmexport spin_quote
func spinQuote(n int32) {
	sym := "AAPL"
	for i := int32(0); i < n; i++ {
		l := hostQuote(unsafe.Pointer(unsafe.StringData(sym)), uint32(len(sym)))
		sink += int64(hostResult(unsafe.Pointer(&buf[0]), uint32(min(l, int32(len(buf))))))
	}
}
