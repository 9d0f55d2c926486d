package sqlstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/sqlstore"
)

// BenchmarkListCalls lists the first page of 100 of an app's 20,000 calls (one-to-one calls
// among 200 users, two participants each): unfiltered, by a participant's uid, and by
// status. A page reads its rows along calls_initiated and their participants in one query;
// the total is counted over the app's calls that match.
func BenchmarkListCalls(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			db, svc, analyze := groupBenchStore(b, backend)
			seedCalls(b, db, 20_000, 200)
			analyze()
			p := chat.Principal{App: chat.App{ID: "a"}}
			for _, tc := range []struct {
				name string
				f    chat.CallFilter
			}{
				{"all", chat.CallFilter{ParticipantsCount: -1}},
				{"uid", chat.CallFilter{ParticipantsCount: -1, UID: "u00007"}},
				{"status", chat.CallFilter{ParticipantsCount: -1, Status: chat.CallEnded}},
			} {
				b.Run(tc.name, func(b *testing.B) {
					for b.Loop() {
						calls, total, err := svc.Calls().List(context.Background(), p, tc.f, chat.Page{Number: 1, PerPage: 100})
						if err != nil || len(calls) != 100 || total == 0 || len(calls[0].Participants) != 2 {
							b.Fatalf("%d calls of %d, %v", len(calls), total, err)
						}
					}
				})
			}
		})
	}
}

// seedCalls writes n ended one-to-one calls among users u00000…, in one transaction.
func seedCalls(b *testing.B, db *sqlstore.DB, n, users int) {
	seedGroupB(b, db, "all", users)
	err := db.Transact(context.Background(), func(tx chat.Tx) error {
		for i := range n {
			a, c := fmt.Sprintf("u%05d", i%users), fmt.Sprintf("u%05d", (i+1)%users)
			at := int64(1_700_000_000 + i)
			call := chat.Call{AppID: "a", SessionID: fmt.Sprintf("s%06d", i), Initiator: a, Receiver: c, ReceiverType: chat.ReceiverUser,
				Type: chat.CallAudio, Mode: chat.CallModeCall, Status: chat.CallEnded, MID: "m", InitiatedAt: at, StartedAt: at + 1, EndedAt: at + 61,
				AudioSeconds: 60, Participants: []chat.CallParticipant{
					{UID: a, State: chat.CallEnded, IsJoined: true, JoinedAt: at + 1, LeftAt: at + 61, AudioSeconds: 60},
					{UID: c, State: chat.CallEnded, IsJoined: true, JoinedAt: at + 1, LeftAt: at + 61, AudioSeconds: 60}}}
			if err := tx.InsertCall(&call); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
