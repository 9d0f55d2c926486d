package e2e

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/internal/s3test"
)

// TestClientSDKFiles: the official SDK 4.2.0 sends files both ways it does (a File in
// sendMediaMessage, and UploadFileRequest's presigned uploads), gets back attachments it
// turns into its Attachment objects, and each URL serves the bytes it sent; on SQLite with
// the default files directory (beside the database, created on first start), and on
// PostgreSQL with --files-dir; and on PostgreSQL with an S3 bucket (versitygw) and
// --s3-direct-upload, where the SDK's uploader posts the presigned forms straight to the
// bucket, as it would to CometChat's.
func TestClientSDKFiles(t *testing.T) {
	t.Parallel()
	dir := sdkDir(t)
	for _, db := range []string{"sqlite", "postgres", "s3"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			dbURL := "sqlite:" + filepath.Join(tmp, "natter.db")
			args := []string{"serve", "--addr", "127.0.0.1:0", "--database", dbURL, "--access-log=false"}
			filesDir := filepath.Join(tmp, "natter.db.files")
			if db == "postgres" {
				filesDir = filepath.Join(tmp, "shared-files")
				args = []string{"serve", "--addr", "127.0.0.1:0", "--database", pgtest.URL(t), "--access-log=false", "--files-dir", filesDir}
			}
			key := randomKey()
			env := []string{"NATTER_API_KEY=" + key, "NATTER_APP_ID=e2e"}
			var bucket *s3test.Server
			if db == "s3" {
				bucket = s3test.Start(t)
				c := bucket.Config()
				args = []string{"serve", "--addr", "127.0.0.1:0", "--database", pgtest.URL(t), "--access-log=false",
					"--s3-endpoint", c.Endpoint, "--s3-bucket", c.Bucket, "--s3-access-key", c.AccessKey, "--s3-direct-upload"}
				env = append(env, "NATTER_S3_SECRET_KEY="+c.SecretKey)
			}
			node, cert := tlsNode(t, "node", env, args...)
			if fi, err := os.Stat(filesDir); bucket == nil && (err != nil || !fi.IsDir()) {
				t.Fatalf("files directory %s after the first start: %v", filesDir, err)
			}
			admin, caFile := sdkAdmin(t, node, cert, key)
			ctx := context.Background()
			for _, uid := range []string{"alice", "bob"} {
				if _, err := admin.CreateUser(ctx, client.CreateUserRequest{UID: uid, Name: uid}); err != nil {
					t.Fatal(err)
				}
			}
			spec, _ := json.Marshal(map[string]string{"to": "bob"})
			alice := startSDKUser(t, dir, caFile, node.host(), "e2e", key, "alice", "sdkfiles", "NATTER_CALLS="+string(spec))
			hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: 10 * time.Second}
			fetch := func(url string) string {
				res, err := hc.Get(url)
				if err != nil {
					t.Fatalf("GET %s: %v", url, err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				if res.StatusCode != 200 {
					t.Errorf("GET %s: %d %s", url, res.StatusCode, b)
				}
				return string(b)
			}
			type att struct {
				Name, Extension, MimeType, URL string
				Size                           int64
			}
			for _, tc := range []struct {
				call string
				want []att // URL: the bytes it serves
			}{
				{"sendMediaMessage file", []att{{Name: "first.png", Extension: "png", MimeType: "image/png", Size: 19, URL: "\x89PNG the first file"}}},
				{"uploadAttachments then send", []att{
					{Name: "report.pdf", Extension: "pdf", MimeType: "application/pdf", Size: 11, URL: "report body"},
					{Name: "notes.txt", Extension: "txt", MimeType: "text/plain", Size: 11, URL: "notes body!"},
				}},
			} {
				got, e := sdkCall(t, alice, tc.call)
				var v struct {
					ID          string
					Data        struct{ URL string }
					Attachments []att
				}
				if e != "" || json.Unmarshal([]byte(got), &v) != nil || v.ID == "" || len(v.Attachments) != len(tc.want) {
					t.Errorf("%s: %s (error %q)", tc.call, got, e)
					continue
				}
				for i, w := range tc.want {
					a := v.Attachments[i]
					if a.Name != w.Name || a.Extension != w.Extension || a.MimeType != w.MimeType || a.Size != w.Size ||
						!strings.HasPrefix(a.URL, "https://"+node.host()+"/files/e2e/") {
						t.Errorf("%s: attachment %d: %+v, want %+v", tc.call, i, a, w)
						continue
					}
					if b := fetch(a.URL); b != w.URL {
						t.Errorf("%s: attachment %d serves %q, want %q", tc.call, i, b, w.URL)
					}
				}
				// What bob reads is what alice was answered.
				m, err := admin.OnBehalfOf("bob").GetMessage(ctx, v.ID)
				if err != nil || len(m.Data.Attachments) != len(tc.want) || m.Data.Attachments[0]["url"] != v.Attachments[0].URL {
					t.Errorf("%s: bob reads %+v, %v", tc.call, m, err)
				}
			}
			alice.wait("done", nil, 30*time.Second)
			if bucket != nil {
				if objects := bucket.Files(); len(objects) != 3 {
					t.Errorf("objects in the bucket: %v", objects)
				}
			}
		})
	}
}
