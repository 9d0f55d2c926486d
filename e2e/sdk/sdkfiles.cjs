// Files through the official SDK 4.2.0, for e2e's TestClientSDKFiles (issue 37): the two ways
// it sends them. sendMediaMessage with a File (multipart/form-data, files[]), and
// UploadFileRequest (POST files/upload-url, then its XhrUploader posting each presigned form,
// then sendMediaMessage with the uploaded attachments, as the React UI Kit 7 composer does).
// Each is reported as {"ev":"call","name","ok","value"|"error"}, raced against a bound.
//
// The spec (NATTER_CALLS) names the receiver (to). Node has no XMLHttpRequest, which the
// SDK's uploader uses; the shim below sends it with fetch, with what the uploader reads
// (status, responseText, onload, onerror, upload.onprogress).
"use strict";

const bound = 20000;

class FetchXHR {
  constructor() { this.upload = {}; this.status = 0; this.responseText = ""; this.ctl = new AbortController(); }
  open(method, url) { this.method = method; this.url = url; }
  send(body) {
    fetch(this.url, { method: this.method, body, signal: this.ctl.signal }).then(async (res) => {
      this.status = res.status;
      this.responseText = await res.text();
      if (this.upload.onprogress) this.upload.onprogress({ loaded: 1, total: 1 });
      if (this.onload) this.onload();
    }, (e) => { if (e.name === "AbortError") { if (this.onabort) this.onabort(); } else if (this.onerror) this.onerror(e); });
  }
  abort() { this.ctl.abort(); }
}

module.exports = async function run(CometChat, spec, out) {
  globalThis.XMLHttpRequest = FetchXHR;
  const call = require("./shims.cjs").boundedCall(out, bound);
  const media = (m) => ({
    id: String(m.getId()), type: m.getType(), data: m.getData(),
    attachments: (m.getAttachments() || []).map((a) => ({ name: a.getName(), extension: a.getExtension(), size: a.getSize(), mimeType: a.getMimeType(), url: a.getUrl() })),
  });

  // 1. A File in the send: multipart/form-data.
  const png = new File([Buffer.concat([Buffer.from([0x89]), Buffer.from("PNG the first file")])], "first.png", { type: "image/png" });
  await call("sendMediaMessage file", CometChat.sendMediaMessage(
    new CometChat.MediaMessage(spec.to, png, CometChat.MESSAGE_TYPE.IMAGE, CometChat.RECEIVER_TYPE.USER)).then(media));

  // 2. Upload first, then send: two files through UploadFileRequest.
  const uploaded = new Promise((resolve, reject) => {
    const req = CometChat.createUploadFileRequest(spec.to, CometChat.RECEIVER_TYPE.USER);
    req.uploadAttachments([
      { fileId: "f1", file: new File([Buffer.from("report body")], "report.pdf", { type: "application/pdf" }) },
      { fileId: "f2", file: new File([Buffer.from("notes body!")], "../notes.txt", { type: "text/plain" }) },
    ], new CometChat.UploadFileListener({
      onComplete: (r) => (r.successful.length === 2 ? resolve(r.successful.map((s) => s.attachment))
        : reject(new Error("upload: " + JSON.stringify({ rejected: r.rejected, failed: r.failed })))),
    }));
  });
  await call("uploadAttachments then send", uploaded.then((atts) => {
    const m = new CometChat.MediaMessage(spec.to, null, CometChat.MESSAGE_TYPE.FILE, CometChat.RECEIVER_TYPE.USER);
    m.setAttachments(atts);
    return CometChat.sendMediaMessage(m);
  }).then(media));
};
