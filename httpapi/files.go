package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/natter-chat/natter/chat"
)

// Uploaded files (chat/files.go, docs/files.md). Three endpoints:
//
//   - POST /v3/files/upload-url (routes.go): a client's request for upload forms, answered
//     per file with {request: {url, method, body}, attachment, expiresAt}, as the SDK's
//     PresignClient reads it.
//   - POST /files/{appId}: the upload form's target, where the SDK's uploader posts the
//     form's body fields and the file (as it would to an S3 bucket). No key or token: the
//     form's signature is the credential, bound to its app, user, file size and type.
//   - GET /files/{appId}/{key}/{name}: the file, to anyone holding its URL, as the hosted
//     service serves its files: an <img src> or a download link sends no credentials. The
//     key's 160 random bits are the secret.
//
// The last two are not API endpoints (no /v3, no key) and are registered beside the route
// table, with their own body cap.

// Defaults of the upload options.
const (
	DefaultMaxUploads    = 32
	DefaultUploadTimeout = 10 * time.Minute
)

// uploadFormPattern and filePattern are the mux patterns of the upload target and the files.
const (
	uploadFormPattern = "POST /files/{appId}"
	filePattern       = "GET /files/{appId}/{key}/{name}"
)

// uploadURLRequest is POST /files/upload-url's body, as the SDK's PresignClient sends it.
type uploadURLRequest struct {
	Files map[string]struct {
		FileID   string `json:"fileId"`
		Name     string `json:"name"`
		Size     int64  `json:"size"`
		MimeType string `json:"mimeType"`
	} `json:"files"`
	Receiver     string `json:"receiver"`
	ReceiverType string `json:"receiverType"`
}

type uploadFormJSON struct {
	Request struct {
		URL    string            `json:"url"`
		Method string            `json:"method"`
		Body   map[string]string `json:"body"`
	} `json:"request"`
	Attachment attachmentJSON `json:"attachment"`
	ExpiresAt  int64          `json:"expiresAt"`
}

// attachmentJSON is an attachment as message data and the SDK's Attachment class hold it.
type attachmentJSON struct {
	Name      string `json:"name"`
	Extension string `json:"extension"`
	Size      int64  `json:"size"`
	MimeType  string `json:"mimeType"`
	URL       string `json:"url"`
}

func (s *Server) attachmentJSON(r *http.Request, appID string, a chat.Attachment) attachmentJSON {
	return attachmentJSON{Name: a.Name, Extension: a.Extension, Size: a.Size, MimeType: a.MimeType,
		URL: s.publicBase(r) + chat.FilePath(appID, a.Key, a.Name)}
}

// publicBase is scheme://host the client reaches natter at: --public-host (https), else the
// request's own host, https when it came over TLS.
func (s *Server) publicBase(r *http.Request) string {
	if s.opt.PublicHost != "" {
		return "https://" + s.opt.PublicHost
	}
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// uploadURL answers POST /files/upload-url: a signed upload form per file.
func (s *Server) uploadURL(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req uploadURLRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	in := chat.UploadRequest{Receiver: req.Receiver, ReceiverType: req.ReceiverType}
	for id, f := range req.Files { // by the key, which the answer is keyed by too
		in.Files = append(in.Files, chat.UploadFile{FileID: id, Name: f.Name, Size: f.Size, MimeType: f.MimeType})
	}
	forms, err := s.svc.PresignUploads(r.Context(), p, in)
	if err != nil {
		return err
	}
	out := make(map[string]uploadFormJSON, len(forms))
	for _, f := range forms {
		var j uploadFormJSON
		j.Request.URL = s.publicBase(r) + "/files/" + p.App.ID
		j.Request.Method = http.MethodPost
		j.Request.Body = map[string]string{"policy": f.Policy, "signature": f.Signature}
		if f.URL != "" { // straight to the bucket: S3's presigned POST (docs/files.md)
			j.Request.URL, j.Request.Body = f.URL, f.Fields
		}
		j.Attachment = s.attachmentJSON(r, p.App.ID, f.Grant.Attachment())
		j.ExpiresAt = f.Grant.Exp
		out[f.FileID] = j
	}
	writeData(w, r, out, nil)
	return nil
}

// otherAppsHost reports whether the request came to another app's API host name than
// appID: such a request reaches no file of appID's.
func (s *Server) otherAppsHost(r *http.Request, appID string) bool {
	host, _, ok := hostApp(r.Host, s.opt.Domain)
	return ok && host != appID
}

var errNoFile = chat.Errorf(chat.CodeAPINotFound, "The file does not exist.")

// serveFile answers GET (and HEAD) /files/{appId}/{key}/{name}: the stored bytes, with their
// type, length, ETag, ranges and a year's caching (the content under a key never changes).
// A type a browser could run (HTML, SVG, XML, JavaScript: anything not on inlineTypes) is
// served as a download, and nothing is sniffed.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	appID, key := r.PathValue("appId"), r.PathValue("key")
	if s.otherAppsHost(r, appID) {
		writeError(w, r, errNoFile)
		return
	}
	f, b, err := s.svc.OpenFile(r.Context(), appID, key)
	if err != nil {
		writeError(w, r, err)
		return
	}
	defer b.Close()
	// A large file to a slow client outlasts the server's write timeout: give it an
	// upload's time.
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.opt.UploadTimeout))
	h := w.Header()
	h.Set("Content-Type", f.MimeType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", `"`+key+`"`)
	disposition := "attachment"
	if inlineType(f.MimeType) {
		disposition = "inline"
	}
	if d := mime.FormatMediaType(disposition, map[string]string{"filename": f.Name}); d != "" {
		disposition = d
	}
	h.Set("Content-Disposition", disposition)
	http.ServeContent(w, r, "", b.ModTime(), b)
}

// inlineType reports whether a browser may show a file of type mt in place: images (not
// SVG, which runs scripts), audio, video and plain text. Anything else is a download (PDF
// too: browsers' viewers refuse the sandbox every file is served in).
func inlineType(mt string) bool {
	switch {
	case mt == "image/svg+xml":
		return false
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"):
		return true
	}
	return mt == "text/plain"
}

// uploadFile answers POST /files/{appId}, the upload form's target: the form's fields
// (policy, signature), then the file part "file", as the SDK's uploader and S3's presigned
// posts send them. It answers the attachment.
func (s *Server) uploadFile(w http.ResponseWriter, r *http.Request) {
	if err := s.receiveUpload(w, r); err != nil {
		writeError(w, r, err)
	}
}

// maxFormFields bounds an upload form's fields before its file, and formFieldBytes each.
const (
	maxFormFields  = 16
	formFieldBytes = 8 << 10
)

func (s *Server) receiveUpload(w http.ResponseWriter, r *http.Request) error {
	appID := r.PathValue("appId")
	if s.otherAppsHost(r, appID) {
		return chat.Errorf(chat.CodeAPINotFound, "The requested API does not exist.")
	}
	if !s.svc.FilesServed() {
		return errUploadsNotServed()
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return chat.Errorf(chat.CodeBadRequest, "The upload must be a multipart/form-data body with a boundary.")
	}
	fields := map[string]string{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return chat.InvalidField("file", "The form has no file part named file.")
		}
		if err != nil {
			return formReadErr(err)
		}
		if part.FormName() != "file" {
			if len(fields) == maxFormFields {
				return chat.Errorf(chat.CodeBadRequest, "The form has too many fields.")
			}
			b, err := io.ReadAll(io.LimitReader(part, formFieldBytes+1))
			if err != nil {
				return formReadErr(err)
			}
			if len(b) > formFieldBytes {
				return chat.Errorf(chat.CodeBadRequest, "A form field is longer than %d bytes.", formFieldBytes)
			}
			fields[part.FormName()] = string(b)
			continue
		}
		g, err := s.svc.UploadGrantOf(r.Context(), appID, fields["policy"], fields["signature"])
		if err != nil {
			return err
		}
		release, err := s.uploadSlot(w)
		if err != nil {
			return err
		}
		defer release()
		ctx, cancel := s.uploadContext(w, r)
		defer cancel()
		body := &readErr{r: part}
		a, err := s.svc.StoreUpload(ctx, g, body)
		if err != nil {
			return body.or(err)
		}
		writeData(w, r, s.attachmentJSON(r, appID, a), nil)
		return nil
	}
}

// uploadSlot takes one of this node's upload slots (Options.MaxUploads), or answers 503 with
// Retry-After when all are taken.
func (s *Server) uploadSlot(w http.ResponseWriter) (release func(), err error) {
	select {
	case s.uploads <- struct{}{}:
		return func() { <-s.uploads }, nil
	default:
		w.Header().Set("Retry-After", "2")
		return nil, chat.Errorf(chat.CodeServiceUnavailable, "This node is receiving as many uploads as it takes. Please retry.")
	}
}

// uploadContext gives an upload the time a large file needs (Options.UploadTimeout) in place
// of the request's deadline, and the connection's read and write deadlines with it. A client
// that hangs up still ends it: reading its body fails.
func (s *Server) uploadContext(w http.ResponseWriter, r *http.Request) (context.Context, context.CancelFunc) {
	rc := http.NewResponseController(w)
	deadline := time.Now().Add(s.opt.UploadTimeout)
	rc.SetReadDeadline(deadline)
	rc.SetWriteDeadline(deadline.Add(30 * time.Second))
	return context.WithDeadline(context.WithoutCancel(r.Context()), deadline)
}

// readErr remembers the error reading a request's body met, so that a failed store is told
// apart from a body that broke off (400) or ran over its cap (413).
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// or is the body's own error, if reading it failed, else err.
func (e *readErr) or(err error) error {
	if e.err != nil {
		return formReadErr(e.err)
	}
	return err
}

// capJSON caps a JSON body at the general cap (Options.MaxBodyBytes) on a route whose own cap
// is an upload's.
func (s *Server) capJSON(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes)
}

// withAttachments puts the files stored with a send into its data: data.attachments lists
// them, and data.url is the first one's URL, as the hosted service answers.
func withAttachments(data json.RawMessage, atts []attachmentJSON) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(data) > 0 && string(data) != "null" {
		if err := json.Unmarshal(data, &obj); err != nil {
			return nil, chat.InvalidField("data", "The data field must hold the message's data as a JSON object.")
		}
	}
	obj["url"], _ = json.Marshal(atts[0].URL)
	obj["attachments"], _ = json.Marshal(atts)
	return json.Marshal(obj)
}
