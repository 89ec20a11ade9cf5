package live

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"cockpit/live/pystr"
)

// Root is the runtime root ($COCKPIT_HOME, else ~/.cockpit). Its live/ tree uses
// Vibe-Trading's file names, so one root can be shared with a Vibe-Trading install.
type Root string

// HomeEnv names the environment variable that overrides the default runtime root.
const HomeEnv = "COCKPIT_HOME"

// DefaultRoot returns $COCKPIT_HOME, else ~/.cockpit. UNC-style paths are refused.
func DefaultRoot() (Root, error) {
	if h := os.Getenv(HomeEnv); strings.TrimSpace(h) != "" {
		return NewRoot(h)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("runtime root: %w (set %s)", err, HomeEnv)
	}
	return NewRoot(filepath.Join(home, ".cockpit"))
}

// NewRoot validates dir and returns it as an absolute runtime root.
func NewRoot(dir string) (Root, error) {
	if strings.HasPrefix(dir, `//`) || strings.HasPrefix(dir, `\\`) {
		return "", fmt.Errorf("runtime root %q: network (UNC) paths are not allowed", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("runtime root %q: %w", dir, err)
	}
	return Root(abs), nil
}

// Dir returns the root directory.
func (r Root) Dir() string { return string(r) }

// LiveDir returns <root>/live.
func (r Root) LiveDir() string { return filepath.Join(string(r), "live") }

// BrokerDir returns <root>/live/<broker> for a key that has passed NormalizeBroker.
func (r Root) BrokerDir(broker string) string { return filepath.Join(r.LiveDir(), broker) }

// MandatePath returns the committed mandate file of a broker.
func (r Root) MandatePath(broker string) string {
	return filepath.Join(r.BrokerDir(broker), "mandate.json")
}

// ConsentDir returns the consent-record directory of a broker.
func (r Root) ConsentDir(broker string) string { return filepath.Join(r.BrokerDir(broker), "consent") }

// ProposalDir returns the proposal directory of a broker.
func (r Root) ProposalDir(broker string) string {
	return filepath.Join(r.BrokerDir(broker), "proposals")
}

// CounterPath returns the daily order counter file of a broker.
func (r Root) CounterPath(broker string) string {
	return filepath.Join(r.BrokerDir(broker), "trade_counter.json")
}

// LockPath returns the submit-lock file of a broker.
func (r Root) LockPath(broker string) string {
	return filepath.Join(r.BrokerDir(broker), ".order_submit.lock")
}

// ErrInvalidBroker reports a broker key that could be a path or is empty.
var ErrInvalidBroker = errors.New("invalid broker key")

// NormalizeBroker strips and lower-cases a broker key and refuses anything path-shaped:
// empty, containing "/", "\" or "..", or containing control characters.
func NormalizeBroker(name string) (string, error) {
	key := pystr.Lower(pystr.Strip(name))
	switch {
	case key == "":
		return "", fmt.Errorf("%w: empty", ErrInvalidBroker)
	case strings.ContainsAny(key, `/\`) || strings.Contains(key, ".."):
		return "", fmt.Errorf("%w %q: a broker key is never a path", ErrInvalidBroker, name)
	case strings.IndexFunc(key, unicode.IsControl) >= 0:
		return "", fmt.Errorf("%w %q: control characters", ErrInvalidBroker, name)
	}
	return key, nil
}

// IsPaperBroker reports whether a normalised broker key names the embedded paper broker.
func IsPaperBroker(key string) bool { return key == PaperBroker }

// PaperBroker is the key of the embedded paper broker.
const PaperBroker = "paper"
