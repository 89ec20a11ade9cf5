//go:build wasip1

// Command loop is a hostile plugin: its tick never returns.
package main

func main() {}

var n int

//go:wasmexport tick
func tick() {
	for {
		n++
	}
}
