//go:build wasip1

// Command trap is a hostile plugin: its tick dereferences nil.
package main

func main() {}

type box struct{ v int }

var p *box

//go:wasmexport tick
func tick() {
	p.v++
}
