package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
)

// UploadURLRequest asks for upload forms: the files by an id the caller picks, and
// optionally the receiver the message will go to.
type UploadURLRequest struct {
	Files        map[string]UploadFileInfo `json:"files"`
	Receiver     string                    `json:"receiver,omitempty"`
	ReceiverType string                    `json:"receiverType,omitempty"`
}

// UploadFileInfo describes a file to upload.
type UploadFileInfo struct {
	FileID   string `json:"fileId"`
	Name     string `json:"name"`
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
}

// UploadForm is one file's upload form: where to post it, the fields to post before the
// file, and the attachment the file becomes.
type UploadForm struct {
	Request struct {
		URL    string            `json:"url"`
		Method string            `json:"method"`
		Body   map[string]string `json:"body"`
	} `json:"request"`
	Attachment FileAttachment `json:"attachment"`
	ExpiresAt  int64          `json:"expiresAt"`
}

// FileAttachment is a stored file as a message's data.attachments[] holds it.
type FileAttachment struct {
	Name      string `json:"name"`
	Extension string `json:"extension"`
	Size      int64  `json:"size"`
	MimeType  string `json:"mimeType"`
	URL       string `json:"url"`
}

// CreateUploadURLs asks for an upload form per file, for the acting user (required).
func (c *Client) CreateUploadURLs(ctx context.Context, req UploadURLRequest) (map[string]UploadForm, error) {
	var out map[string]UploadForm
	_, err := c.call(ctx, http.MethodPost, "/files/upload-url", nil, req, &out)
	return out, err
}

// UploadFile posts the file's bytes, streamed from r, to its upload form and returns the
// stored attachment. The form is its own credential: no key is sent.
//
// When r tells its length (a *bytes.Reader, *strings.Reader, *bytes.Buffer: anything with
// Len), the request says its Content-Length, as a browser's does: an S3 bucket, which a
// direct form posts to, refuses a chunked body.
func (c *Client) UploadFile(ctx context.Context, form UploadForm, name string, r io.Reader) (*FileAttachment, error) {
	// The fields and the file's part header, then the file, then the closing boundary.
	var head, tail bytes.Buffer
	mw := multipart.NewWriter(&head)
	for k, v := range form.Request.Body {
		if err := mw.WriteField(k, v); err != nil {
			return nil, fmt.Errorf("natter: upload: %w", err)
		}
	}
	if _, err := mw.CreateFormFile("file", name); err != nil {
		return nil, fmt.Errorf("natter: upload: %w", err)
	}
	fmt.Fprintf(&tail, "\r\n--%s--\r\n", mw.Boundary())
	length := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok {
		length = int64(head.Len() + l.Len() + tail.Len())
	}
	body := io.MultiReader(&head, r, &tail)
	req, err := http.NewRequestWithContext(ctx, form.Request.Method, form.Request.URL, io.NopCloser(body))
	if err != nil {
		return nil, fmt.Errorf("natter: upload: %w", err)
	}
	if length >= 0 {
		req.ContentLength = length
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("natter: upload: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, fmt.Errorf("natter: upload: read response: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, errorFrom(resp, raw)
	}
	if len(bytes.TrimSpace(raw)) == 0 || raw[0] == '<' {
		// A form posted straight to an S3 bucket: 204 with nothing, or 201 with S3's XML.
		// The attachment is the form's, as the SDK's uploader takes it.
		a := form.Attachment
		return &a, nil
	}
	var env struct {
		Data FileAttachment `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("natter: upload: decode response: %w", err)
	}
	return &env.Data, nil
}
