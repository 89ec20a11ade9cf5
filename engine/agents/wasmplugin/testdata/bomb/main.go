//go:build wasip1

// Command bomb is a hostile plugin: each tick it grabs 8 MiB more and keeps it.
package main

func main() {}

var hoard [][]byte

//go:wasmexport tick
func tick() {
	for i := 0; i < 64; i++ {
		b := make([]byte, 8<<20)
		for j := range b {
			b[j] = byte(j)
		}
		hoard = append(hoard, b)
	}
}
