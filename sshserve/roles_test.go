package sshserve

import "testing"

// TestRolesCountsScreens (issue 31 item 1): Roles counts the open screens by the key's role,
// what the owner's metrics serve as cockpit_ssh_sessions; a closed screen leaves the count.
func TestRolesCountsScreens(t *testing.T) {
	r := newRig(t, nil)
	viewer := r.screen("viewer")
	r.screen("admin")
	eventually(t, "two screens seated", func() bool { return len(r.srv.Peers()) == 2 })
	got := r.srv.Roles()
	if got["viewer"] != 1 || got["admin"] != 1 || got["operator"] != 0 {
		t.Fatalf("Roles() = %v, want one viewer and one admin", got)
	}
	viewer.sess.Close()
	eventually(t, "the viewer's seat freed", func() bool { return r.srv.Roles()["viewer"] == 0 })
	if got := r.srv.Roles()["admin"]; got != 1 {
		t.Errorf("Roles()[admin] = %d after the viewer left, want 1", got)
	}
}
