package chat

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mimetype "mime"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/natter-chat/natter/internal/blobstore"
)

// Uploaded files (issue 37). A client sends a file two ways, as CometChat's SDKs do: it asks
// POST /files/upload-url for a signed upload form per file (PresignUploads), posts each file
// to that form (StoreUpload), then sends the message with the attachments the forms named;
// or it sends the message as multipart/form-data with its files (StoreFile, then the send).
// Either way a file's bytes go to the blob store (Config.Files) under a random key, and its
// record (FileStore) keeps its app, uploader, display name, type and size. Its URL is
// natter's own, /files/{appId}/{key}/{name}: the key, 160 random bits, is its secret.

// Defaults and bounds of uploads.
const (
	DefaultMaxFileSize = 100 << 20 // the hosted service's cap, and the SDK's file.size.max default
	MaxUploadFiles     = 10        // files per upload-url request or multipart send (the SDK's file.count.max default)
	UploadFormTTL      = 15 * time.Minute
	maxFileNameBytes   = 255
	maxMimeTypeBytes   = 100
)

// FileRecord is a stored file.
type FileRecord struct {
	AppID     string
	Key       string
	UID       string // the uploader
	Name      string // display name, sanitised
	MimeType  string // the type it is served with
	Size      int64
	CreatedAt int64
}

// FileStore keeps files' records.
type FileStore interface {
	// CreateFile records a stored file; ErrAlreadyExists when the key is taken.
	CreateFile(ctx context.Context, f FileRecord) error
	// FileByKey reads a file's record; ErrNotFound when the app has none under key.
	FileByKey(ctx context.Context, appID, key string) (FileRecord, error)
	// DeleteFiles deletes the records among keys that uid uploaded (any uploader's when uid
	// is "") and returns their keys.
	DeleteFiles(ctx context.Context, appID, uid string, keys []string) ([]string, error)
	// DeleteUserFiles deletes the records of every file uid uploaded and returns their keys.
	DeleteUserFiles(ctx context.Context, appID, uid string) ([]string, error)
	// ClaimOrphanFiles claims for deletion, across apps and oldest first, at most limit
	// files that no message carries (not attached), created before createdBefore, and not
	// claimed since leaseBefore (a claim older than that was a node's that died): it sets
	// their swept_at to now and returns them. Nodes claiming at once take different files.
	ClaimOrphanFiles(ctx context.Context, createdBefore, leaseBefore, now int64, limit int) ([]FileRef, error)
	// ForgetSweptFiles deletes the records of claimed files whose bytes are gone.
	ForgetSweptFiles(ctx context.Context, files []FileRef) error
}

// FileTx is the files' part of a write transaction.
type FileTx interface {
	// AttachFiles marks the app's files among keys (distinct) as carried by a message, in
	// the transaction that stores it; ErrFileGone when one of them is not there or is
	// claimed by the orphan sweep (the transaction must then roll back).
	AttachFiles(appID string, keys []string) error
}

// FileRef names a stored file.
type FileRef struct{ AppID, Key string }

// Attachment is a stored file as a message's data.attachments[] entry holds it, less its URL,
// which names the host the client reached (FilePath has its path).
type Attachment struct {
	Key       string
	Name      string
	Extension string
	MimeType  string
	Size      int64
}

// FilePath is the path a file is served at: /files/{appId}/{key}/{name}.
func FilePath(appID, key, name string) string {
	return "/files/" + appID + "/" + key + "/" + url.PathEscape(name)
}

// fileKeyOf returns the key of a file URL of appID's (FilePath's shape, any host), or false.
func fileKeyOf(appID, raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	rest, ok := strings.CutPrefix(u.Path, "/files/"+appID+"/")
	if !ok {
		return "", false
	}
	key, _, _ := strings.Cut(rest, "/")
	return key, validFileKey(key)
}

// newFileKey is a fresh file key: 160 random bits, base32 in lowercase (32 characters).
func newFileKey() string {
	b := make([]byte, 20)
	rand.Read(b)
	return strings.ToLower(base32.StdEncoding.EncodeToString(b))
}

func validFileKey(k string) bool {
	if len(k) != 32 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// SafeFileName is name as a display name: its last path segment, without control
// characters, NUL, invalid UTF-8 or leading dots and spaces, at most 255 bytes with its
// extension kept; "file" when nothing is left. The file is stored under its random key,
// never under this name.
func SafeFileName(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, name)
	name = strings.TrimLeft(strings.TrimSpace(name), ". ")
	if len(name) > maxFileNameBytes {
		ext := fileExtension(name)
		keep := maxFileNameBytes - len(ext) - 1
		if ext == "" {
			keep = maxFileNameBytes
		}
		for keep > 0 && !utf8.RuneStart(name[keep]) {
			keep--
		}
		name = name[:keep]
		if ext != "" {
			name += "." + ext
		}
	}
	if name == "" {
		return "file"
	}
	return name
}

// fileExtension is name's extension in lowercase without its dot, when it is 1 to 10 letters
// and digits; else "".
func fileExtension(name string) string {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	if len(ext) == 0 || len(ext) > 10 {
		return ""
	}
	for _, r := range ext {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return ""
		}
	}
	return ext
}

// FileMimeType is the type a file is stored and served with: the declared type, reduced to
// type/subtype in lowercase, when it parses and says more than application/octet-stream;
// else the type of the name's extension; else application/octet-stream.
func FileMimeType(declared, name string) string {
	if mt, _, err := mimetype.ParseMediaType(declared); err == nil && strings.Count(mt, "/") == 1 && len(mt) <= maxMimeTypeBytes && mt != "application/octet-stream" {
		return mt
	}
	if ext := fileExtension(name); ext != "" {
		if mt, _, err := mimetype.ParseMediaType(mimetype.TypeByExtension("." + ext)); err == nil {
			return mt
		}
	}
	return "application/octet-stream"
}

func newAttachment(key, name, mimeType string, size int64) Attachment {
	name = SafeFileName(name)
	return Attachment{Key: key, Name: name, Extension: fileExtension(name), MimeType: FileMimeType(mimeType, name), Size: size}
}

// MaxFileSize is the per-file cap (Config.MaxFileSize).
func (s *Service) MaxFileSize() int64 { return s.cfg.MaxFileSize }

// FilesServed reports whether this node stores files (Config.Files is set).
func (s *Service) FilesServed() bool { return s.cfg.Files != nil }

func (s *Service) files() (blobstore.Store, error) {
	if s.cfg.Files == nil {
		return nil, Errorf(CodeNotImplemented, "This natter stores no files: send the media message with its file's URL in data.url or data.attachments.")
	}
	return s.cfg.Files, nil
}

// UploadRequest is POST /files/upload-url's body: the files to upload, each under the id
// the client gave it, and where the message will go.
type UploadRequest struct {
	Files        []UploadFile
	Receiver     string
	ReceiverType string
}

// UploadFile is one file an upload form is asked for.
type UploadFile struct {
	FileID   string
	Name     string
	Size     int64
	MimeType string
}

// UploadGrant is what an upload form allows: one file of exactly Size bytes, stored under
// Key in App for UID, until Exp (Unix seconds). It travels signed (UploadForm.Policy).
type UploadGrant struct {
	App      string `json:"app"`
	UID      string `json:"uid"`
	Key      string `json:"key"`
	Name     string `json:"name"`
	MimeType string `json:"type"`
	Size     int64  `json:"size"`
	Exp      int64  `json:"exp"`
}

// Attachment is the attachment the grant's file becomes.
func (g UploadGrant) Attachment() Attachment {
	return Attachment{Key: g.Key, Name: g.Name, Extension: fileExtension(g.Name), MimeType: g.MimeType, Size: g.Size}
}

// UploadForm is one file's upload form: its grant, and the policy and signature the client
// posts with the file. A direct form (Config.DirectUploads) has the store's URL and fields
// instead, to post to the bucket.
type UploadForm struct {
	FileID    string
	Grant     UploadGrant
	Policy    string
	Signature string
	URL       string
	Fields    map[string]string
}

// grantMeta names the metadata a directly uploaded object carries its signed grant in
// ("<policy>.<signature>"), which the store's form requires as it is: whoever reads the
// bucket can tell which grant put an object there.
const grantMeta = "natter-grant"

// direct is the store upload forms point at, when they point at the store.
func (s *Service) direct() (blobstore.Presigner, bool) {
	if !s.cfg.DirectUploads {
		return nil, false
	}
	p, ok := s.cfg.Files.(blobstore.Presigner)
	return p, ok
}

// PresignUploads validates an upload-url request and signs one upload form per file, for
// the acting user. With a receiver, the user must be able to send to it (blocks,
// membership). It writes nothing (a form becomes a file only when the file is posted), but
// for a form straight to the store (Config.DirectUploads), whose record it writes.
func (s *Service) PresignUploads(ctx context.Context, p Principal, req UploadRequest) ([]UploadForm, error) {
	if _, err := s.files(); err != nil {
		return nil, err
	}
	u, err := s.actingUser(ctx, p)
	if err != nil {
		return nil, err
	}
	if len(req.Files) == 0 {
		return nil, InvalidField("files", "The files field must name at least one file.")
	}
	if len(req.Files) > MaxUploadFiles {
		return nil, InvalidField("files", fmt.Sprintf("At most %d files may be uploaded at once.", MaxUploadFiles))
	}
	if req.Receiver != "" || req.ReceiverType != "" {
		if req.ReceiverType != ReceiverUser && req.ReceiverType != ReceiverGroup {
			return nil, Errorf(CodeInvalidReceiverType, "The receiverType must be user or group.")
		}
		if _, err := s.addressee(ctx, p, u.UID, req.ReceiverType, req.Receiver); err != nil {
			return nil, err
		}
	}
	key, err := s.uploadKey(ctx)
	if err != nil {
		return nil, internal("upload key", err)
	}
	exp := s.cfg.Now().Add(UploadFormTTL).Unix()
	out := make([]UploadForm, 0, len(req.Files))
	for _, f := range req.Files {
		switch {
		case f.FileID == "" || len(f.FileID) > 100:
			return nil, InvalidField("files", "Every file needs a fileId of 1 to 100 characters.")
		case f.Size <= 0:
			return nil, InvalidField("files", "The file "+brief(f.FileID)+" needs a size: a positive number of bytes.")
		case f.Size > s.cfg.MaxFileSize:
			return nil, &Error{Code: CodeBadRequest, Override: KindTooLarge,
				Message: fmt.Sprintf("The file is larger than the %d bytes a file may have.", s.cfg.MaxFileSize)}
		}
		a := newAttachment(newFileKey(), f.Name, f.MimeType, f.Size)
		g := UploadGrant{App: p.App.ID, UID: u.UID, Key: a.Key, Name: a.Name, MimeType: a.MimeType, Size: f.Size, Exp: exp}
		b, _ := json.Marshal(g)
		policy := base64.RawURLEncoding.EncodeToString(b)
		out = append(out, UploadForm{FileID: f.FileID, Grant: g, Policy: policy, Signature: signPolicy(key, policy)})
	}
	if d, ok := s.direct(); ok {
		// Straight to the bucket: natter sees no upload, so the file's record is written now,
		// unattached. A form never used, or a file never sent, is then the orphan sweep's
		// (filesweep.go) like any other; the send checks the bytes are there (checkUploads).
		for i := range out {
			f := &out[i]
			g := f.Grant
			f.URL, f.Fields, err = d.PresignPost(ctx, g.Key, g.Size, g.MimeType, map[string]string{grantMeta: f.Policy + "." + f.Signature}, time.Unix(exp, 0))
			if err != nil {
				return nil, internal("presign post", err)
			}
			if err := s.store.CreateFile(ctx, FileRecord{AppID: g.App, Key: g.Key, UID: g.UID, Name: g.Name, MimeType: g.MimeType, Size: g.Size, CreatedAt: s.now()}); err != nil {
				return nil, internal("record file", err)
			}
		}
	}
	return out, nil
}

// checkUploads checks, when upload forms post straight to the store (Config.DirectUploads),
// that the files a send carries are there: a HEAD per file must find the object with its
// record's size. The record was written with the form, before any byte was posted, so it
// proves nothing; a file not uploaded (yet) refuses the send (400), and an outage is 503,
// with nothing written. A file natter has no record of is refused by the send's transaction
// (AttachFiles). Off, or without files, it asks nothing.
func (s *Service) checkUploads(ctx context.Context, appID string, keys []string) error {
	d, ok := s.direct()
	if !ok {
		return nil
	}
	for _, k := range keys {
		f, err := s.store.FileByKey(ctx, appID, k)
		if errors.Is(err, ErrNotFound) {
			continue
		} else if err != nil {
			return internal("read file", err)
		}
		size, _, err := d.Stat(ctx, k)
		if errors.Is(err, blobstore.ErrNotFound) || err == nil && size != f.Size {
			return InvalidField("data", "The file "+f.Name+" has not been uploaded: post it to its upload form before sending the message.")
		}
		if err != nil {
			return fileStoreErr(err, 0)
		}
	}
	return nil
}

func signPolicy(key []byte, policy string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(policy))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// uploadKey is the key upload forms are signed with: derived from the deployment's signing
// secret, which every node shares (realtime.go), for this purpose only.
func (s *Service) uploadKey(ctx context.Context) ([]byte, error) {
	secret, err := s.signingSecret(ctx)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("natter upload forms v1"))
	return m.Sum(nil), nil
}

// Upload forms' refusals. An expired form says so, so that the client asks for another.
var (
	errUploadForm    = &Error{Code: CodeNoAccess, Message: "The upload form's signature does not match; ask POST /files/upload-url for another."}
	errUploadExpired = &Error{Code: CodeNoAccess, Message: "The upload form has expired; ask POST /files/upload-url for another."}
)

// UploadGrantOf checks an upload form's policy and signature, for the app whose upload
// address it was posted to, and returns its grant.
func (s *Service) UploadGrantOf(ctx context.Context, appID, policy, signature string) (UploadGrant, error) {
	g, err := s.grantOf(ctx, appID, policy, signature)
	if err != nil {
		return UploadGrant{}, err
	}
	if s.cfg.Now().Unix() > g.Exp {
		return UploadGrant{}, errUploadExpired
	}
	return g, nil
}

// grantOf checks a grant's signature and app (UploadGrantOf checks its expiry too).
func (s *Service) grantOf(ctx context.Context, appID, policy, signature string) (UploadGrant, error) {
	if len(policy) > 4096 || len(signature) > 100 {
		return UploadGrant{}, errUploadForm
	}
	key, err := s.uploadKey(ctx)
	if err != nil {
		return UploadGrant{}, internal("upload key", err)
	}
	if !hmac.Equal([]byte(signPolicy(key, policy)), []byte(signature)) {
		return UploadGrant{}, errUploadForm
	}
	b, err := base64.RawURLEncoding.DecodeString(policy)
	var g UploadGrant
	if err != nil || json.Unmarshal(b, &g) != nil || g.App != appID || !validFileKey(g.Key) {
		return UploadGrant{}, errUploadForm
	}
	return g, nil
}

// StoreUpload stores the file posted to an upload form: exactly the grant's size, or
// nothing. A form stores one file: a second post of it is refused.
func (s *Service) StoreUpload(ctx context.Context, g UploadGrant, r io.Reader) (Attachment, error) {
	return s.storeFile(ctx, g.App, g.UID, g.Attachment(), r, g.Size, true)
}

// StoreFile stores a file sent with a message (multipart), for the acting user, up to the
// per-file cap. The caller sends the message, and DiscardFiles the files when that fails.
func (s *Service) StoreFile(ctx context.Context, p Principal, name, mimeType string, r io.Reader) (Attachment, error) {
	if _, err := s.files(); err != nil {
		return Attachment{}, err
	}
	u, err := s.actingUser(ctx, p)
	if err != nil {
		return Attachment{}, err
	}
	return s.storeFile(ctx, p.App.ID, u.UID, newAttachment(newFileKey(), name, mimeType, 0), r, s.cfg.MaxFileSize, false)
}

// storeFile streams r into the blob store under a.Key (at most max bytes; exactly max when
// exact), then records it; a failure at any step leaves neither blob nor record.
func (s *Service) storeFile(ctx context.Context, appID, uid string, a Attachment, r io.Reader, max int64, exact bool) (Attachment, error) {
	files, err := s.files()
	if err != nil {
		return Attachment{}, err
	}
	if _, err := s.store.FileByKey(ctx, appID, a.Key); err == nil {
		return Attachment{}, &Error{Code: CodeNoAccess, Message: "The upload form was used already; ask POST /files/upload-url for another."}
	}
	n, err := files.Put(ctx, a.Key, r, max)
	if err != nil {
		return Attachment{}, fileStoreErr(err, max)
	}
	if exact && n != max {
		files.Delete(context.WithoutCancel(ctx), a.Key)
		return Attachment{}, InvalidField("file", fmt.Sprintf("The file has %d bytes; its upload form is for %d.", n, max))
	}
	if n == 0 {
		files.Delete(context.WithoutCancel(ctx), a.Key)
		return Attachment{}, InvalidField("file", "The file is empty.")
	}
	a.Size = n
	err = s.store.CreateFile(ctx, FileRecord{AppID: appID, Key: a.Key, UID: uid, Name: a.Name, MimeType: a.MimeType, Size: n, CreatedAt: s.now()})
	if errors.Is(err, ErrAlreadyExists) {
		// The same form posted twice at once: the blob is the recorded file's now (one of the
		// two posts, whole), so it stays.
		return Attachment{}, &Error{Code: CodeNoAccess, Message: "The upload form was used already; ask POST /files/upload-url for another."}
	}
	if err != nil {
		files.Delete(context.WithoutCancel(ctx), a.Key)
		return Attachment{}, internal("record file", err)
	}
	return a, nil
}

// fileStoreErr is a blob store's failure as the client hears it.
func fileStoreErr(err error, max int64) error {
	var ce *Error
	switch {
	case errors.As(err, &ce):
		return err
	case errors.Is(err, blobstore.ErrTooLarge):
		return &Error{Code: CodeBadRequest, Override: KindTooLarge, Err: err,
			Message: fmt.Sprintf("The file is larger than the %d bytes allowed.", max)}
	case errors.Is(err, blobstore.ErrUnavailable):
		return &Error{Code: CodeServiceUnavailable, Message: "The file could not be stored now. Please retry.", Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeBadRequest, Message: "The upload did not finish.", Err: err}
	}
	return internal("store file", err)
}

// DiscardFiles deletes files this request stored for a message that was not sent.
func (s *Service) DiscardFiles(ctx context.Context, p Principal, atts []Attachment) {
	if len(atts) == 0 || s.cfg.Files == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	var keys []string
	for _, a := range atts {
		keys = append(keys, a.Key)
		s.cfg.Files.Delete(ctx, a.Key)
	}
	s.store.DeleteFiles(ctx, p.App.ID, "", keys) // this request's own, under fresh random keys
}

// OpenFile opens a file of appID's by key for serving.
func (s *Service) OpenFile(ctx context.Context, appID, key string) (FileRecord, blobstore.Blob, error) {
	notFound := Errorf(CodeAPINotFound, "The file does not exist.")
	if s.cfg.Files == nil || !validFileKey(key) {
		return FileRecord{}, nil, notFound
	}
	f, err := s.store.FileByKey(ctx, appID, key)
	if errors.Is(err, ErrNotFound) {
		return FileRecord{}, nil, notFound
	}
	if err != nil {
		return FileRecord{}, nil, internal("read file", err)
	}
	b, err := s.cfg.Files.Open(ctx, key)
	if errors.Is(err, blobstore.ErrNotFound) {
		return FileRecord{}, nil, notFound
	}
	if err != nil {
		return FileRecord{}, nil, fileStoreErr(err, 0)
	}
	return f, b, nil
}

// removeMessageFiles deletes the files a permanently deleted message carried (data.url and
// data.attachments[].url that are this app's file URLs) which its sender uploaded; best
// effort, after the deletion committed. Another user's file that a message links to stays.
func (s *Service) removeMessageFiles(ctx context.Context, m Message) {
	if s.cfg.Files == nil {
		return
	}
	keys := s.messageFileKeys(m.AppID, m.Data) // filesweep.go
	if len(keys) == 0 {
		return
	}
	ctx = context.WithoutCancel(ctx)
	gone, err := s.store.DeleteFiles(ctx, m.AppID, m.Sender, keys)
	if err != nil {
		return
	}
	for _, k := range gone {
		s.cfg.Files.Delete(ctx, k)
	}
}

// removeUserFiles deletes every file a permanently deleted user uploaded; best effort, after
// the deletion committed.
func (s *Service) removeUserFiles(ctx context.Context, appID, uid string) {
	if s.cfg.Files == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	keys, err := s.store.DeleteUserFiles(ctx, appID, uid)
	if err != nil {
		return
	}
	for _, k := range keys {
		s.cfg.Files.Delete(ctx, k)
	}
}
