package session

import "testing"

// TestDemoAgentDetachesReviews (issue 29 §5): the built-in strategy agent's reviews hold their
// order, not the agent (engine.DetachReviews); other agents keep waiting for the answer.
func TestDemoAgentDetachesReviews(t *testing.T) {
	for _, tt := range []struct {
		agent string
		want  bool
	}{{"strategy", true}, {"none", false}} {
		t.Run(tt.agent, func(t *testing.T) {
			o := testOptions(t.TempDir())
			o.Agent = tt.agent
			s, err := Open(o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.Engine().DetachReviews; got != tt.want {
				t.Errorf("agent %s: DetachReviews = %v, want %v", tt.agent, got, tt.want)
			}
		})
	}
}
