package halt

import (
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
)

// newHook, when set, stands in for fsnotify.NewWatcher's error: tests fail it.
var newHook atomic.Pointer[error]

// newFileWatcher starts fsnotify, or fails as the test's hook says.
func newFileWatcher() (*fsnotify.Watcher, error) {
	if err := newHook.Load(); err != nil {
		return nil, *err
	}
	return fsnotify.NewWatcher()
}

// FailFileWatcher makes every file watcher fail to start with err until restore is called (as
// when every inotify instance of the user is taken, which a test must not do to the machine).
func FailFileWatcher(err error) (restore func()) {
	newHook.Store(&err)
	return func() { newHook.Store(nil) }
}

// addHook, when set, adds a watch in place of fsnotify: tests make a watch fail or go silent.
var addHook atomic.Pointer[func(fw *fsnotify.Watcher, dir string) error]

// addWatch adds fsnotify's watch on dir, or runs the test's hook.
func addWatch(fw *fsnotify.Watcher, dir string) error {
	if h := addHook.Load(); h != nil {
		return (*h)(fw, dir)
	}
	return fw.Add(dir)
}

// FailWatches asks fail before each watch a watcher adds, until restore is called: an error
// fails that watch (as a directory the process may not read does, which a test running as
// root cannot make with mode bits), nil adds it.
func FailWatches(fail func(dir string) error) (restore func()) {
	h := func(fw *fsnotify.Watcher, dir string) error {
		if err := fail(dir); err != nil {
			return err
		}
		return fw.Add(dir)
	}
	addHook.Store(&h)
	return func() { addHook.Store(nil) }
}

// SilenceWatches makes each watch a watcher adds succeed without watching anything, until
// restore is called: its directory never reports an event (a file system whose changes the
// kernel does not see, say).
func SilenceWatches() (restore func()) {
	h := func(*fsnotify.Watcher, string) error { return nil }
	addHook.Store(&h)
	return func() { addHook.Store(nil) }
}
