//go:build !unix

package benchcorpus

import "testing"

// ReportCPU reports nothing where getrusage is missing.
func ReportCPU(b *testing.B) func() { return func() {} }
