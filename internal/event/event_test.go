package event

import (
	"context"
	"testing"
	"time"
)

func TestPublishReachesEverySubscriber(t *testing.T) {
	b := NewMemory()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, c := b.Subscribe(ctx, 4), b.Subscribe(ctx, 4)
	b.Publish(ctx, Event{Type: ApplicationCommandPermissionsUpdate, ApplicationID: 1})
	for _, ch := range []<-chan Event{a, c} {
		select {
		case e := <-ch:
			if e.Type != ApplicationCommandPermissionsUpdate || e.ApplicationID != 1 {
				t.Fatalf("got %+v", e)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("event not delivered")
		}
	}
}

func TestSlowSubscriberDoesNotBlockAndCloses(t *testing.T) {
	b := NewMemory()
	ctx, cancel := context.WithCancel(context.Background())
	ch := b.Subscribe(ctx, 1)
	for i := 0; i < 10; i++ { // would block forever if Publish waited
		b.Publish(context.Background(), Event{Type: "X"})
	}
	if e := <-ch; e.Type != "X" {
		t.Fatalf("got %+v", e)
	}
	cancel()
	for range ch { // drains and ends when the subscription closes
	}
	b.Publish(context.Background(), Event{Type: "after"}) // no subscriber left: no panic
}
