package fleet

import "time"

// Alert is something the fleet refused because it did not check out: a resume no known host
// signed, a resume of a halt another host made, a day count lowered without a signed release.
type Alert struct {
	Kind    string // one of the Alert* kinds
	Host    string // the host the record claims to be from
	Subject string // the bucket key or stream subject
	Text    string
	At      time.Time
}

// Alert kinds.
const (
	AlertResumeIgnored  = "resume_ignored"  // an unsigned, unknown-signed or not-its-own resume
	AlertHaltUnverified = "halt_unverified" // a halt applied although nobody known signed it
	AlertCountRefused   = "count_refused"   // a day count that went down without a signed release
)

// alertRepeat is how long the same alert stays quiet after it was raised.
const alertRepeat = 10 * time.Minute

// alert logs a refusal and hands it to Options.OnAlert, once per alertRepeat for the same
// kind, subject and text (the mirror reads the same bucket value every second).
func (f *Fleet) alert(a Alert) {
	if a.At.IsZero() {
		a.At = time.Now()
	}
	key := a.Kind + "\x00" + a.Subject + "\x00" + a.Text
	f.alertMu.Lock()
	last, seen := f.alerted[key]
	if !seen || time.Since(last) >= alertRepeat {
		f.alerted[key] = time.Now()
	}
	f.alertMu.Unlock()
	if seen && time.Since(last) < alertRepeat {
		return
	}
	f.log.Warn("fleet alert", "kind", a.Kind, "host", a.Host, "subject", a.Subject, "text", a.Text)
	if f.opts.OnAlert != nil {
		f.opts.OnAlert(a)
	}
}
