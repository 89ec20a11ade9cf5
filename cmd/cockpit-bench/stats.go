package main

import (
	"bufio"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// pct returns the q-quantile of samples (sorted in place), in µs.
func pct(samples []time.Duration, q float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	return float64(samples[int(q*float64(len(samples)-1))].Nanoseconds()) / 1e3
}

// perCall times fn n times in a row and returns the mean µs per call.
func perCall(n int, fn func(i int)) float64 {
	start := time.Now()
	for i := 0; i < n; i++ {
		fn(i)
	}
	return float64(time.Since(start).Nanoseconds()) / 1e3 / float64(n)
}

// repeatFor runs fn until at least d has passed (and at least once), returning calls and time.
func repeatFor(d time.Duration, fn func()) (int, time.Duration) {
	start := time.Now()
	n := 0
	for n == 0 || time.Since(start) < d {
		fn()
		n++
	}
	return n, time.Since(start)
}

// peakRSSMB is the process's peak resident set (VmHWM) in MB, 0 when unknown.
func peakRSSMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
