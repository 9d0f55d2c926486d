package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/natter-chat/natter/chat"
)

// decodeSendRequest reads a send's body: JSON, or the multipart/form-data form the client
// SDKs send media messages in (readSendForm).
func decodeSendRequest(r *http.Request, req *sendMessageRequest) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		return readSendForm(r, req)
	}
	return decodeJSON(r, req)
}

// readSendForm reads a send in multipart/form-data, as CometChat's SDK 3 sends every media
// message and SDK 4 one made with a URL string: each of the message's fields is a form
// field (receiver, receiverType, category, type, muid), data is the message's data as a
// JSON string, tags come as tags[] ("a,b": the SDK appends the array), and files as
// files[]. Without a file it is the JSON send in other clothes, and is read as one; the
// caption and any other field are ignored (data.text carries the caption, data.metadata
// the metadata).
//
// The parts are read one at a time from the body, which the route's cap already bounds
// (limitBody): nothing is buffered beyond it, and a file part ends the reading at once.
// Storing files is not served yet: a file part is where an upload will be read
// (readSendForm's one refusal to replace), and until then it is refused with 501
// ERR_NOT_IMPLEMENTED, so that no message is sent without its file.
func readSendForm(r *http.Request, req *sendMessageRequest) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return chat.Errorf(chat.CodeBadRequest, "The multipart/form-data body could not be read: it needs a boundary.")
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return formReadErr(err)
		}
		name := part.FormName()
		if part.FileName() != "" || name == "files[]" || name == "files" || name == "file" {
			part.Close()
			return errUploadsNotServed()
		}
		b, err := io.ReadAll(part)
		part.Close()
		if err != nil {
			return formReadErr(err)
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
}

// formReadErr is a multipart body that could not be read: over its cap (413), or malformed.
func formReadErr(err error) error {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return errBodyTooLarge(mb.Limit)
	}
	return chat.Errorf(chat.CodeBadRequest, "The multipart/form-data body could not be read.")
}

// errUploadsNotServed refuses a file sent with a message: natter stores no files yet.
func errUploadsNotServed() error {
	return chat.Errorf(chat.CodeNotImplemented, "Uploading files is not supported by natter yet: send the media message with its file's URL in data.url or data.attachments.")
}
