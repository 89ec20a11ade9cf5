// Package halt is the kill switch on disk and in memory: Trip, Clear and ReadSentinel write,
// remove and read the HALT and REDUCE_ONLY sentinel files of the runtime root; IsHalted,
// IsReduceOnly and StateOf read a broker's trading state from them (fail-closed: an unreadable
// sentinel counts as set); Watcher follows the sentinels with fsnotify and runs the halt
// actions; Latch is the in-memory halt for when the watcher cannot watch. The sentinel names,
// scopes and paths are domain types in live; live does not import this package.
package halt
