package config

import (
	"fmt"
	"time"
)

// DefaultSSHIdleTimeout closes an SSH session nobody typed in for this long.
const DefaultSSHIdleTimeout = 15 * time.Minute

// SSH configures `cockpit serve-ssh`.
type SSH struct {
	IdleTimeout Duration `toml:"idle_timeout"` // close a session with no keypress for this long (default 15m)
}

// Idle is the idle timeout in force: the configured one, else the default.
func (s SSH) Idle() time.Duration {
	if s.IdleTimeout.Duration > 0 {
		return s.IdleTimeout.Duration
	}
	return DefaultSSHIdleTimeout
}

// Validate checks the section.
func (s SSH) Validate() error {
	if s.IdleTimeout.Duration < 0 {
		return fmt.Errorf("config: ssh.idle_timeout = %s: must not be negative", s.IdleTimeout.Duration)
	}
	return nil
}
