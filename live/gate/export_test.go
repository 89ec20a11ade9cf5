package gate

// SetLockWaiting sets the hook told when a submission starts to wait for a held submit lock;
// it returns a func that removes it.
func SetLockWaiting(f func(key string)) (undo func()) {
	lockWaiting = f
	return func() { lockWaiting = nil }
}
