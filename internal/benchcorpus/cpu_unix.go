//go:build unix

package benchcorpus

import (
	"syscall"
	"testing"
)

// ReportCPU starts counting the process's CPU time (user + system); the function it returns
// reports it per iteration as "cpu-ns/op". On a machine shared with other work, wall time
// (ns/op) includes waiting for a core; CPU time does not. Call it after the setup and defer
// the result.
func ReportCPU(b *testing.B) func() {
	start := cpuNanos()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuNanos()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
