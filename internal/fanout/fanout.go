// Package fanout holds the two pieces every in-process publisher here shares: subscriber
// channels that go away with their context, and a send that never blocks.
package fanout

import (
	"context"
	"sync"
)

// Subscribe adds a channel with the given buffer to *subs, which mu guards. When ctx ends the
// channel is removed and closed under mu, so a publisher that sends while holding mu never
// sends on a closed channel.
func Subscribe[T any](ctx context.Context, mu *sync.Mutex, subs *[]chan T, buffer int) <-chan T {
	ch := make(chan T, buffer)
	mu.Lock()
	*subs = append(*subs, ch)
	mu.Unlock()
	go func() {
		<-ctx.Done()
		mu.Lock()
		defer mu.Unlock()
		for i, s := range *subs {
			if s == ch {
				*subs = append((*subs)[:i], (*subs)[i+1:]...)
				break
			}
		}
		close(ch)
	}()
	return ch
}

// SendNewest delivers v without blocking; when ch is full it drops the oldest queued value to
// make room, so a slow reader always ends up with the newest ones.
func SendNewest[T any](ch chan T, v T) {
	for {
		select {
		case ch <- v:
			return
		default:
			select {
			case <-ch:
			default:
			}
		}
	}
}
