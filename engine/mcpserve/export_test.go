package mcpserve

// Turns is how many client sessions hold a turn (tests).
func (s *Server) Turns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns)
}
