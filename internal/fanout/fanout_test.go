package fanout

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestSubscribeRemovesAndCloses(t *testing.T) {
	var mu sync.Mutex
	var subs []chan int
	ctx, cancel := context.WithCancel(context.Background())
	keep := Subscribe(context.Background(), &mu, &subs, 1)
	gone := Subscribe(ctx, &mu, &subs, 1)
	cancel()
	select {
	case _, ok := <-gone:
		if ok {
			t.Fatal("got a value, want the channel closed")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the channel was not closed after its context ended")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(subs) != 1 || (<-chan int)(subs[0]) != keep {
		t.Errorf("subscribers after cancel: %d, want only the live one", len(subs))
	}
}

func TestSendNewestKeepsTheNewest(t *testing.T) {
	ch := make(chan int, 2)
	for i := 1; i <= 5; i++ {
		SendNewest(ch, i)
	}
	if a, b := <-ch, <-ch; a != 4 || b != 5 {
		t.Errorf("got %d, %d; want 4, 5", a, b)
	}
}
