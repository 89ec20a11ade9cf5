//go:build !linux

package atomicfile

// exchange is not available here: Replace renames.
func exchange(a, b string) error { return errNoExchange }
