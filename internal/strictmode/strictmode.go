// Package strictmode checks, like OpenSSH's StrictModes, that a file cockpit trusts (its
// config, its SSH keys, its tokens, its plugins) can only have been written by the user
// running cockpit or by root.
//
// The rule, for a file under a runtime root:
//
//   - the file, the root and every directory between them must be owned by the user running
//     cockpit (its effective uid) or by root, and none may be writable by group or others;
//   - every directory above the root, up to /, must be owned by that user or by root, and not
//     writable by group or others unless it has the sticky bit (like /tmp: others may add names
//     to it but not rename or remove ours, and what we find in it is checked in turn). Unlike
//     OpenSSH, the walk does not stop at the home directory: a root under someone else's home is
//     theirs to replace.
//
// Paths are walked one name at a time, as the kernel resolves them: a symbolic link is
// followed, and the directory holding it is one of the directories checked, so a link in a
// directory others may write is refused like a file there would be. A directory reached
// through a link outside the root is held to the rule of directories above the root.
//
// A name that does not exist ends the walk with an error that wraps fs.ErrNotExist, after
// every directory before it was checked: callers that accept a missing file (a config that
// means the defaults, a token made on first use) still refuse an unsafe directory to make it in.
package strictmode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrUnsafe is what every refusal wraps (errors.Is(err, ErrUnsafe)).
var ErrUnsafe = errors.New("unsafe owner or mode")

// maxLinks is how many symbolic links one walk follows before giving up (Linux's limit).
const maxLinks = 40

// Root checks a runtime root directory and every directory above it.
func Root(root string) error { return Check(root, root) }

// File checks path with its own directory as the root: the file and that directory held
// strictly, the directories above held to the rule of directories above a root.
func File(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	return Check(filepath.Dir(abs), abs)
}

// Check checks path, the runtime root and the way from / to both (the package comment has
// the rule). It returns nil, an *Error for the first thing found unsafe, or the walk's error
// (fs.ErrNotExist for a missing name).
func Check(root, path string) error {
	uid := os.Geteuid()
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	canon, err := walk(root, func(p string, fi fs.FileInfo, last bool) error { return check(p, fi, uid, last) })
	if err != nil {
		return err
	}
	if err := checkFinal(canon, uid); err != nil {
		return err
	}
	path, err = filepath.Abs(path)
	if err != nil || path == root {
		return err
	}
	final, err := walk(path, func(p string, fi fs.FileInfo, _ bool) error { return check(p, fi, uid, within(p, canon)) })
	if err != nil {
		return err
	}
	return checkFinal(final, uid)
}

// checkFinal checks what a walk ended on by the strict rule (no sticky exception).
func checkFinal(p string, uid int) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	return check(p, fi, uid, true)
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// check applies the rule to one file or directory; strict is false for a directory above
// the root, which may be writable by others when it has the sticky bit.
func check(p string, fi fs.FileInfo, uid int, strict bool) error {
	owner, ok := ownerOf(fi)
	e := &Error{Path: p, Dir: fi.IsDir(), Above: !strict, Owner: owner, Mode: fi.Mode(), uid: uid}
	e.BadOwner = !ok || (owner != uid && owner != 0)
	e.Writable = fi.Mode().Perm()&0o022 != 0 && (strict || !fi.IsDir() || fi.Mode()&fs.ModeSticky == 0)
	if e.BadOwner || e.Writable {
		return e
	}
	return nil
}

// walk resolves the absolute path p one name at a time, calling visit on / and on every
// directory or file it reaches once links are followed (last: nothing is left to resolve);
// it returns the resolved path.
func walk(p string, visit func(p string, fi fs.FileInfo, last bool) error) (string, error) {
	fi, err := os.Lstat("/")
	if err != nil {
		return "", err
	}
	cur, names, links := "/", split(p), 0
	if err := visit("/", fi, len(names) == 0); err != nil {
		return "", err
	}
	for len(names) > 0 {
		name := names[0]
		names = names[1:]
		if name == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return next, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if links++; links > maxLinks {
				return next, fmt.Errorf("%s: more than %d symbolic links", p, maxLinks)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return next, err
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			names = append(split(target), names...)
			continue
		}
		if err := visit(next, fi, len(names) == 0); err != nil {
			return next, err
		}
		cur = next
	}
	return cur, nil
}

// split returns the names of a path, without empty names and ".".
func split(p string) []string {
	var out []string
	for _, n := range strings.Split(filepath.ToSlash(p), "/") {
		if n != "" && n != "." {
			out = append(out, n)
		}
	}
	return out
}
