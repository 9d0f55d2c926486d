package sqlstore_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// TestPostgresBus: events published by one node reach another node's subscriber in order,
// an event too large for a notification by reference.
func TestPostgresBus(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	var buses []chat.Bus
	for range 2 {
		db, err := sqlstore.Open(ctx, url, sqlstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		b := db.NewBus(nil)
		t.Cleanup(func() { b.Close() })
		buses = append(buses, b)
	}
	got := make(chan chat.Event, 10)
	buses[1].Subscribe(func(e chat.Event) { got <- e })
	big, _ := json.Marshal(map[string]string{"text": strings.Repeat("é", 9000)})
	sent := []chat.Event{
		{App: "a", Users: []string{"bob"}, Frame: json.RawMessage(`{"n":1}`)},
		{App: "a", Group: "crew", Frame: big},
		{App: "a", Users: []string{"bob"}, Frame: json.RawMessage(`{"n":3}`)},
	}
	for _, e := range sent {
		if err := buses[0].Publish(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range sent {
		select {
		case e := <-got:
			if e.App != want.App || e.Group != want.Group || string(e.Frame) != string(want.Frame) {
				t.Errorf("event %d: %+v, want %+v", i, e.App+"/"+e.Group, want.App+"/"+want.Group)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("event %d did not arrive", i)
		}
	}
}
