package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/natter-chat/natter/chat"
)

// sendFiles are the files a send's body brought, stored before the message is sent, and the
// context the send runs in (an upload's longer one once a file came).
type sendFiles struct {
	s       *Server
	p       chat.Principal
	ctx     context.Context
	atts    []chat.Attachment
	release func()
	cancel  func()
}

// finish ends the send: the files are deleted if it failed (err), and the upload slot freed.
func (f *sendFiles) finish(err error) {
	if err != nil && len(f.atts) > 0 {
		f.s.svc.DiscardFiles(f.ctx, f.p, f.atts)
	}
	if f.release != nil {
		f.release()
	}
	if f.cancel != nil {
		f.cancel()
	}
}

// decodeSendRequest reads a send's body: JSON (at the general cap, though the route's own
// cap is an upload's), or the multipart/form-data form the client SDKs send media messages
// in (readSendForm). The caller runs the send in the answer's context and calls its finish
// with the send's error.
func (s *Server) decodeSendRequest(w http.ResponseWriter, r *http.Request, p chat.Principal, req *sendMessageRequest) (*sendFiles, error) {
	f := &sendFiles{s: s, p: p, ctx: r.Context()}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "multipart/form-data" {
		s.capJSON(w, r)
		return f, decodeJSON(r, req)
	}
	if err := s.readSendForm(w, r, f, req); err != nil {
		f.finish(err)
		return nil, err
	}
	return f, nil
}

// readSendForm reads a send in multipart/form-data, as CometChat's SDK 3 sends every media
// message and SDK 4 one with a File: each of the message's fields is a form field (receiver,
// receiverType, category, type, muid), data is the message's data as a JSON string, tags come
// as tags[] ("a,b": the SDK appends the array), and files as files[] (file and any part with
// a file name are files too). The caption and any other field are ignored (data.text carries
// the caption, data.metadata the metadata).
//
// The parts are read one at a time from the body, which the route's cap bounds (limitBody);
// the fields together may hold at most the general cap (Options.MaxBodyBytes). Each file
// streams to the blob store as it arrives (chat.Service.StoreFile), up to the per-file cap,
// and the message's data gets them: data.attachments, and data.url the first one's URL. Any
// failure deletes the files stored so far.
func (s *Server) readSendForm(w http.ResponseWriter, r *http.Request, f *sendFiles, req *sendMessageRequest) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return chat.Errorf(chat.CodeBadRequest, "The multipart/form-data body could not be read: it needs a boundary.")
	}
	budget := s.opt.MaxBodyBytes
	var atts []attachmentJSON
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return formReadErr(err)
		}
		name := part.FormName()
		if part.FileName() != "" || name == "files[]" || name == "files" || name == "file" {
			a, err := s.storeFormFile(w, r, f, part)
			part.Close()
			if err != nil {
				return err
			}
			atts = append(atts, s.attachmentJSON(r, f.p.App.ID, a))
			continue
		}
		b, err := io.ReadAll(io.LimitReader(part, budget+1))
		part.Close()
		if err != nil {
			return formReadErr(err)
		}
		if budget -= int64(len(b)); budget < 0 {
			return errBodyTooLarge(s.opt.MaxBodyBytes)
		}
		if !utf8.Valid(b) {
			return chat.InvalidField(name, "The field is not valid UTF-8.")
		}
		v := string(b)
		switch name {
		case "receiver":
			req.Receiver = v
		case "receiverType":
			req.ReceiverType = v
		case "category":
			req.Category = v
		case "type":
			req.Type = v
		case "muid":
			req.MUID = v
		case "quotedMessageId":
			req.QuotedMessageID, _ = json.Marshal(v)
		case "data":
			if !json.Valid(b) {
				return chat.InvalidField("data", "The data field must hold the message's data as JSON.")
			}
			req.Data = json.RawMessage(b)
		case "tags[]", "tags":
			for _, t := range strings.Split(v, ",") {
				if t = strings.TrimSpace(t); t != "" {
					req.Tags = append(req.Tags, t)
				}
			}
		}
	}
	if len(atts) > 0 {
		data, err := withAttachments(req.Data, atts)
		if err != nil {
			return err
		}
		req.Data = data
	}
	return nil
}

// storeFormFile stores one file part of a send. The first takes an upload slot and gives the
// send an upload's time.
func (s *Server) storeFormFile(w http.ResponseWriter, r *http.Request, f *sendFiles, part *multipart.Part) (chat.Attachment, error) {
	if !s.svc.FilesServed() {
		return chat.Attachment{}, errUploadsNotServed()
	}
	if len(f.atts) == chat.MaxUploadFiles {
		return chat.Attachment{}, chat.InvalidField("files", "A message may carry at most 10 files.")
	}
	if f.release == nil {
		release, err := s.uploadSlot(w)
		if err != nil {
			return chat.Attachment{}, err
		}
		f.release = release
		f.ctx, f.cancel = s.uploadContext(w, r)
	}
	body := &readErr{r: part}
	a, err := s.svc.StoreFile(f.ctx, f.p, part.FileName(), part.Header.Get("Content-Type"), body)
	if err != nil {
		return chat.Attachment{}, body.or(err)
	}
	f.atts = append(f.atts, a)
	return a, nil
}

// formReadErr is a multipart body that could not be read: over its cap (413), or malformed.
func formReadErr(err error) error {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return errBodyTooLarge(mb.Limit)
	}
	return chat.Errorf(chat.CodeBadRequest, "The multipart/form-data body could not be read.")
}

// errUploadsNotServed refuses a file where this natter stores none (no blob store).
func errUploadsNotServed() error {
	return chat.Errorf(chat.CodeNotImplemented, "This natter stores no files: send the media message with its file's URL in data.url or data.attachments.")
}
