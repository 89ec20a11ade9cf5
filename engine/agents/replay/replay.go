// Package replay is an agent that plays a JSONL script of tool calls: a demo, an incident
// review, or "what would today's mandate have done with yesterday's session". Each line is
// {"t": seconds from the start} or {"ts": an ISO-8601 time}, "tool" and "args"; `cockpit audit
// export --format replay` writes such a script from a session's audit trail.
package replay

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/jsonv"
)

// Step is one scripted tool call.
type Step struct {
	Line int
	At   time.Duration // from the first step
	Tool string
	Args *jsonv.Object
}

// Parse reads a script. Errors name the line and the field.
func Parse(r io.Reader) ([]Step, error) {
	var steps []Step
	var first time.Time
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		v, err := jsonv.Parse(line, jsonv.Options{RejectDuplicates: true})
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		o, ok := v.(*jsonv.Object)
		if !ok {
			return nil, fmt.Errorf("line %d: want a JSON object, got %s", n, jsonv.TypeName(v))
		}
		st := Step{Line: n, Args: jsonv.NewObject()}
		for _, m := range o.Members() {
			switch m.Key {
			case "tool":
				s, ok := m.Value.(string)
				if !ok || s == "" {
					return nil, fmt.Errorf("line %d: tool must be a non-empty string", n)
				}
				st.Tool = s
			case "args":
				a, ok := m.Value.(*jsonv.Object)
				if !ok && m.Value != nil {
					return nil, fmt.Errorf("line %d: args must be an object, got %s", n, jsonv.TypeName(m.Value))
				}
				if a != nil {
					st.Args = a
				}
			case "t":
				a, err := live.DecimalFromJSON(m.Value)
				if err != nil || a.Sign() < 0 {
					return nil, fmt.Errorf("line %d: t = %v: want seconds ≥ 0", n, m.Value)
				}
				st.At = time.Duration(a.Float64() * float64(time.Second))
			case "ts":
				s, _ := m.Value.(string)
				at, err := live.ParseExpiry(s)
				if err != nil {
					return nil, fmt.Errorf("line %d: ts = %q: %v", n, s, err)
				}
				if first.IsZero() {
					first = at
				}
				st.At = at.Sub(first)
			default:
				return nil, fmt.Errorf("line %d: unknown field %q (want t or ts, tool, args)", n, m.Key)
			}
		}
		if st.Tool == "" {
			return nil, fmt.Errorf("line %d: missing tool", n)
		}
		if len(steps) > 0 && st.At < steps[len(steps)-1].At {
			st.At = steps[len(steps)-1].At // out-of-order times play at once
		}
		steps = append(steps, st)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return steps, nil
}

// Load reads a script file.
func Load(path string) ([]Step, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay script: %w", err)
	}
	defer f.Close()
	steps, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("replay script %s: %w", path, err)
	}
	return steps, nil
}

// Agent plays steps. A halt stops the running turn; the next turn resumes at the step that
// did not run.
type Agent struct {
	Steps []Step
	Speed float64 // 1 = the script's timing, 2 = twice as fast, 0 = no waiting
	// Sleep waits d or until ctx ends (tests replace it).
	Sleep func(ctx context.Context, d time.Duration) error
	// Results, when set, sees every step's result.
	Results func(Step, engine.Result)
	next    int
}

// Name implements engine.Agent.
func (a *Agent) Name() string { return "replay" }

// Done reports whether every step has run.
func (a *Agent) Done() bool { return a.next >= len(a.Steps) }

// Turn implements engine.Agent: play the remaining steps with their timing.
func (a *Agent) Turn(ctx context.Context, t *engine.Turn) error {
	sleep := a.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	for a.next < len(a.Steps) {
		st := a.Steps[a.next]
		if a.next > 0 && a.Speed > 0 {
			gap := st.At - a.Steps[a.next-1].At
			if err := sleep(ctx, time.Duration(float64(gap)/a.Speed)); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r := t.CallJSON(ctx, st.Tool, jsonv.Clone(st.Args).(*jsonv.Object))
		a.next++
		if a.Results != nil {
			a.Results(st, r)
		}
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
