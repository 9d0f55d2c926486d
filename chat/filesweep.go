package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"time"
)

// The orphan sweep (issue 37). A file is uploaded before its message is sent (an upload
// form, or the parts of a multipart send before the message commits); a client that dies
// between the two, a send that is refused after its form was used, leaves a file no message
// carries. Each message marks the files it carries attached in its own transaction
// (Message.Files, FileTx.AttachFiles), so "carried by a message" costs one indexed UPDATE on
// the sends that carry files and nothing on the others, and no scan of messages. The sweep
// then takes files still unattached a while after their upload:
//
//  1. claim: one statement marks a batch of them (swept_at, a lease) and returns them; on
//     PostgreSQL it passes over rows another transaction holds (SKIP LOCKED), so nodes
//     sweeping at once take different files and none is deleted twice;
//  2. delete their bytes from the blob store;
//  3. forget their records.
//
// A message and the sweep decide on the file's row: a message's UPDATE of a claimed row sees
// the claim (it waits for the claim to commit, or the claim passes over the row the message
// holds), and one that finds the row gone (swept meanwhile) sees that too; either way the send
// is refused (errFileGone) and rolls back. So a file a committed message carries is never
// claimed, and a claimed file never becomes a committed message's, even a message whose send
// began before the sweep and commits after it. (A file named by URL that natter does not
// have is refused alike: natter knows that link is dead.)
// A node that dies after its claim leaves the files to whichever node sweeps once the lease
// has ended; deleting bytes twice is harmless.

// Defaults of the sweep.
const (
	DefaultFileOrphanAfter = 24 * time.Hour // the "a day": far beyond an upload form's 15 minutes
	fileSweepBatch         = 500
	fileSweepLease         = 10 * time.Minute // far beyond a batch's deletes, even from an object store
)

var errFileGone = &Error{Code: CodeBadRequest, Err: ErrFileGone,
	Message: "A file the message carries is not stored here: it was deleted, or removed because no message carried it in the day after its upload. Upload it again."}

// messageFileKeys are the keys of appID's files among data.url and data.attachments[].url,
// each once. Most messages name no file, so the data is only parsed when it could: a JSON
// string holding "/files/" holds the letters "files" unless it escapes them (\u), and a
// message missed here would lose its file to the sweep. A natter that stores no files checks
// none.
func (s *Service) messageFileKeys(appID string, data json.RawMessage) []string {
	if s.cfg.Files == nil || len(data) == 0 || !bytes.Contains(data, []byte("files")) && !bytes.Contains(data, []byte(`\u`)) {
		return nil
	}
	var d struct {
		URL         any `json:"url"`
		Attachments []struct {
			URL any `json:"url"`
		} `json:"attachments"`
	}
	if json.Unmarshal(data, &d) != nil {
		return nil
	}
	var keys []string
	add := func(v any) {
		u, ok := v.(string)
		if !ok {
			return
		}
		k, ok := fileKeyOf(appID, u)
		if !ok {
			return
		}
		for _, have := range keys {
			if have == k {
				return
			}
		}
		keys = append(keys, k)
	}
	add(d.URL)
	for _, a := range d.Attachments {
		add(a.URL)
	}
	return keys
}

// SweepOrphanFiles deletes the files that no message carried within after of their upload,
// in batches until none is left, and returns how many it deleted. Every node may run it at
// once: each file is claimed by one (see above).
func (s *Service) SweepOrphanFiles(ctx context.Context, after time.Duration) (int, error) {
	if s.cfg.Files == nil {
		return 0, nil
	}
	n := 0
	for {
		now := s.cfg.Now()
		claimed, err := s.store.ClaimOrphanFiles(ctx, now.Add(-after).Unix(), now.Add(-fileSweepLease).Unix(), now.Unix(), fileSweepBatch)
		if err != nil {
			return n, internal("claim orphan files", err)
		}
		if len(claimed) == 0 {
			return n, nil
		}
		gone := claimed[:0:0]
		var failed error
		for _, f := range claimed {
			// Keys are unique across apps (160 random bits), and the store is keyed by them.
			if err := s.cfg.Files.Delete(ctx, f.Key); err != nil {
				failed = err // its claim ends with the lease, and a later sweep retries
				continue
			}
			gone = append(gone, f)
		}
		if err := s.store.ForgetSweptFiles(context.WithoutCancel(ctx), gone); err != nil {
			return n, internal("forget swept files", err)
		}
		n += len(gone)
		if failed != nil {
			return n, fileStoreErr(failed, 0)
		}
		if len(claimed) < fileSweepBatch {
			return n, nil
		}
	}
}

// RunFileSweep sweeps orphan files (SweepOrphanFiles) every after/24 (between a minute and an
// hour) until ctx ends; after 0 or less sweeps nothing, as does a node that stores no files.
func (s *Service) RunFileSweep(ctx context.Context, after time.Duration, log *slog.Logger) {
	if after <= 0 || s.cfg.Files == nil {
		return
	}
	every := min(max(after/24, time.Minute), time.Hour)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sctx, cancel := context.WithTimeout(ctx, fileSweepLease/2)
			n, err := s.SweepOrphanFiles(sctx, after)
			cancel()
			if err != nil && ctx.Err() == nil {
				log.Warn("files: sweeping files no message carries failed; will retry", "err", err)
			} else if n > 0 {
				log.Info("files: swept files no message carried", "files", n, "after", after)
			}
		}
	}
}
