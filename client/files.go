package client

import (
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
func (c *Client) UploadFile(ctx context.Context, form UploadForm, name string, r io.Reader) (*FileAttachment, error) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		for k, v := range form.Request.Body {
			if err := mw.WriteField(k, v); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		part, err := mw.CreateFormFile("file", name)
		if err == nil {
			_, err = io.Copy(part, r)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequestWithContext(ctx, form.Request.Method, form.Request.URL, pr)
	if err != nil {
		pr.Close()
		return nil, fmt.Errorf("natter: upload: %w", err)
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
	var env struct {
		Data FileAttachment `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("natter: upload: decode response: %w", err)
	}
	return &env.Data, nil
}
