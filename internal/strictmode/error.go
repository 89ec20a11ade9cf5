package strictmode

import (
	"fmt"
	"io/fs"
	"os/user"
	"strconv"
	"strings"
)

// Error is a refusal: the file or directory found unsafe, its owner and mode, and why.
type Error struct {
	Path     string
	Dir      bool        // a directory
	Above    bool        // a directory above the runtime root (or outside it, through a link)
	Owner    int         // the owner's uid (-1 when it cannot be read)
	Mode     fs.FileMode // as stat reports it
	BadOwner bool        // owned by neither the running user nor root
	Writable bool        // group or others may write it
	uid      int         // the user running cockpit
}

// Is makes errors.Is(err, ErrUnsafe) true for every refusal.
func (e *Error) Is(target error) bool { return target == ErrUnsafe }

// Error names the path, its owner and mode, what is wrong and the command that fixes it.
func (e *Error) Error() string {
	var why, fix []string
	if e.BadOwner {
		why = append(why, fmt.Sprintf("its owner is neither %s, who runs cockpit, nor root", who(e.uid)))
		if e.uid == 0 {
			why[len(why)-1] = "its owner is not root, who runs cockpit"
		}
		fix = append(fix, "chown "+userName(e.uid)+" "+e.Path)
	}
	if e.Writable {
		why = append(why, writers(e.Mode)+" can write it")
		fix = append(fix, "chmod go-w "+e.Path)
	}
	msg := fmt.Sprintf("unsafe %s %s (owner %s, mode %s): %s; cockpit trusts only files and directories that its own user or root owns and nobody else can write (like OpenSSH's StrictModes). Fix: %s",
		e.kind(), e.Path, who(e.Owner), octal(e.Mode), strings.Join(why, ", and "), strings.Join(fix, " && "))
	if e.BadOwner {
		msg += " — but first check what is in it: someone else may have changed it"
	}
	if e.Above {
		msg += "; or use a runtime root outside it (--home or $COCKPIT_HOME)"
		if e.Writable && !e.BadOwner {
			msg += "; a directory shared on purpose, like /tmp, needs the sticky bit (chmod +t " + e.Path + ")"
		}
	}
	return msg
}

// kind says what the path is to the runtime root.
func (e *Error) kind() string {
	switch {
	case e.Dir && e.Above:
		return "directory above the runtime root"
	case e.Dir:
		return "directory"
	}
	return "file"
}

// writers says who besides the owner may write a file of mode m.
func writers(m fs.FileMode) string {
	switch g, o := m&0o020 != 0, m&0o002 != 0; {
	case g && o:
		return "group and others"
	case g:
		return "its group"
	}
	return "others"
}

// octal is a mode as chmod spells it, with the setuid, setgid and sticky bits.
func octal(m fs.FileMode) string {
	n := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		n |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		n |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		n |= 0o1000
	}
	return fmt.Sprintf("%04o", n)
}

// who is a uid with its user name when it has one: "alice (uid 1000)".
func who(uid int) string {
	if uid < 0 {
		return "unknown"
	}
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}

// userName is what chown takes for uid: its name, else the number.
func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return u.Username
	}
	return strconv.Itoa(uid)
}
