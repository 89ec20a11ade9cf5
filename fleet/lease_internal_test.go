package fleet

import "testing"

// TestCountLowers: a count goes down only by a release of one or a lease's return of at most
// maxLease; any other write that lowers it is refused (a forged count).
func TestCountLowers(t *testing.T) {
	cases := []struct {
		name string
		c    count
		ok   bool
	}{
		{"a reserve raises", count{N: 6, Prev: 5, Op: opReserve}, true},
		{"a lease raises", count{N: 37, Prev: 5, Op: opLease}, true},
		{"a release of one", count{N: 4, Prev: 5, Op: opRelease}, true},
		{"a release of two", count{N: 3, Prev: 5, Op: opRelease}, false},
		{"a return of maxLease", count{N: 8, Prev: 8 + maxLease, Op: opReturn}, true},
		{"a return past maxLease", count{N: 7, Prev: 8 + maxLease, Op: opReturn}, false},
		{"a lease that lowers", count{N: 4, Prev: 5, Op: opLease}, false},
		{"a reserve that lowers", count{N: 0, Prev: 20, Op: opReserve}, false},
	}
	for _, c := range cases {
		if got := c.c.lowers() == ""; got != c.ok {
			t.Errorf("%s: accepted = %v, want %v (%s)", c.name, got, c.ok, c.c.lowers())
		}
	}
}

// TestLeaseSize: a block far from the cap, one slot near it, at it and with no cap known.
func TestLeaseSize(t *testing.T) {
	cases := []struct {
		limit, n, hosts, want int
	}{
		{1_000_000, 0, 4, maxLease},
		{40, 0, 4, 2},
		{40, 0, 1, 10},
		{40, 33, 1, 1},
		{6, 0, 4, 1},
		{20, 20, 4, 1},
		{20, 25, 4, 1},
		{0, 0, 4, 1},
		{100, 0, 0, 25},
	}
	for _, c := range cases {
		if got := leaseSize(c.limit, c.n, c.hosts); got != c.want {
			t.Errorf("leaseSize(%d, %d, %d) = %d, want %d", c.limit, c.n, c.hosts, got, c.want)
		}
		if got := leaseSize(c.limit, c.n, c.hosts); c.limit > 0 && c.n < c.limit && c.n+got > c.limit {
			t.Errorf("leaseSize(%d, %d, %d) = %d passes the cap", c.limit, c.n, c.hosts, got)
		}
	}
}

// TestSignedOpenChangesSignature: the hosts' unused slots are signed with the count: a write
// whose Open was changed no longer matches its signature input.
func TestSignedOpenChangesSignature(t *testing.T) {
	c := count{N: 5, ID: "rsv-1", Op: opLease, Prev: 1, Base: 3, Host: "h1", Open: map[string]held{"h1": {N: 3, At: 100}}}
	before := string(c.input("paper.2026-06-01"))
	c.Open = map[string]held{"h1": {N: 0, At: 100}}
	if string(c.input("paper.2026-06-01")) == before {
		t.Error("changing Open left the signature input the same")
	}
	old := count{N: 5, ID: "rsv-1", Op: opReserve, Prev: 4, Base: 3, Host: "h1"}
	if got, want := string(old.input("k")), string(sigInput("count", "k", "5", "rsv-1", opReserve, "4", "3", "h1")); got != want {
		t.Errorf("a count without Open signs %q, want %q (as before leases)", got, want)
	}
}
