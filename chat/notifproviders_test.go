package chat

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func pkcs8PEM(t *testing.T, key any) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// truncatedPEM keeps the first half of a PEM block's lines: whole 64-character lines, so it
// still decodes as PEM (a cut inside a line may not, the key's length varying) and the DER
// inside is what is cut short.
func truncatedPEM(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[:len(lines)/2], "\n") + "\n" + lines[len(lines)-1] + "\n"
}

func TestParseRSAPrivateKey(t *testing.T) {
	rsa2048, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsa1024, _ := rsa.GenerateKey(rand.Reader, 1024)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	good := pkcs8PEM(t, rsa2048)
	pkcs1 := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsa2048)}))
	encrypted := strings.Replace(good, "-----BEGIN PRIVATE KEY-----\n", "-----BEGIN PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\n", 1)
	for _, tc := range []struct {
		name, key string
		want      string // a fragment of the error; "" parses
	}{
		{"PKCS 8", good, ""},
		{"PKCS 1", pkcs1, ""},
		{"escaped line breaks, as pasted into JSON", strings.ReplaceAll(good, "\n", `\n`), ""},
		{"surrounded by white space", "\n  " + good + "\n\n", ""},
		{"not PEM", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "PEM-encoded"},
		{"empty", "", "PEM-encoded"},
		{"a certificate", strings.ReplaceAll(good, "PRIVATE KEY", "CERTIFICATE"), "BEGIN PRIVATE KEY"},
		{"corrupt", strings.Replace(good, "MII", "XXX", 1), "does not parse"},
		{"truncated", truncatedPEM(good), "does not parse"},
		{"two blocks", good + good, "one PEM block"},
		{"trailing text", good + "extra", "one PEM block"},
		{"encrypted", encrypted, "encrypted"},
		{"EC key", pkcs8PEM(t, ec), "RSA"},
		{"1024 bits", pkcs8PEM(t, rsa1024), "2048"},
		{"too long", strings.Repeat("A", MaxPEMLen+1), "8192"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, err := ParseRSAPrivateKey(tc.key)
			switch {
			case tc.want == "" && (err != nil || key == nil):
				t.Fatalf("got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "MII"):
				t.Fatalf("the error quotes the key: %v", err)
			}
		})
	}
}

func TestParseAPNsKey(t *testing.T) {
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	sec1, _ := x509.MarshalECPrivateKey(p256)
	for _, tc := range []struct {
		name, key, want string
	}{
		{"a .p8 file", pkcs8PEM(t, p256), ""},
		{"escaped line breaks", strings.ReplaceAll(pkcs8PEM(t, p256), "\n", `\n`), ""},
		{"P-384", pkcs8PEM(t, p384), "P-256"},
		{"Ed25519", pkcs8PEM(t, ed), "P-256"},
		{"RSA", pkcs8PEM(t, rk), "P-256"},
		{"SEC 1 rather than PKCS 8", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1})), "BEGIN PRIVATE KEY"},
		{"garbage", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "does not parse"},
		{"not PEM", "hello", "PEM-encoded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, err := ParseAPNsKey(tc.key)
			switch {
			case tc.want == "" && (err != nil || key == nil):
				t.Fatalf("got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestServiceAccountFields(t *testing.T) {
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	good := ServiceAccount{Type: "service_account", ProjectID: "my-app-12345", ClientEmail: "firebase-adminsdk-x@my-app-12345.iam.gserviceaccount.com",
		PrivateKeyID: "abc123", PrivateKey: pkcs8PEM(t, rk)}
	with := func(f func(*ServiceAccount)) ServiceAccount { sa := good; f(&sa); return sa }
	for _, tc := range []struct {
		name  string
		sa    ServiceAccount
		field string // the field refused; "" accepted
	}{
		{"good", good, ""},
		{"no type: the spec's schema has none", with(func(s *ServiceAccount) { s.Type = "" }), ""},
		{"another type", with(func(s *ServiceAccount) { s.Type = "authorized_user" }), "serviceAccountCreds.type"},
		{"no project", with(func(s *ServiceAccount) { s.ProjectID = "" }), "serviceAccountCreds.project_id"},
		{"project id with capitals", with(func(s *ServiceAccount) { s.ProjectID = "My-App" }), "serviceAccountCreds.project_id"},
		{"no client email", with(func(s *ServiceAccount) { s.ClientEmail = "" }), "serviceAccountCreds.client_email"},
		{"client email with a name", with(func(s *ServiceAccount) { s.ClientEmail = "Firebase <a@b.example>" }), "serviceAccountCreds.client_email"},
		{"client email without a domain", with(func(s *ServiceAccount) { s.ClientEmail = "a@localhost" }), "serviceAccountCreds.client_email"},
		{"no private key", with(func(s *ServiceAccount) { s.PrivateKey = "" }), "serviceAccountCreds.private_key"},
		{"malformed private key", with(func(s *ServiceAccount) { s.PrivateKey = "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----" }), "serviceAccountCreds.private_key"},
		{"key id with a space", with(func(s *ServiceAccount) { s.PrivateKeyID = "a b" }), "serviceAccountCreds.private_key_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := fieldErrors{}
			key := fe.serviceAccount("serviceAccountCreds", tc.sa)
			if tc.field == "" {
				if len(fe) != 0 || key == nil {
					t.Fatalf("refused: %v", fe)
				}
				return
			}
			if len(fe[tc.field]) == 0 || len(fe) != 1 {
				t.Fatalf("got %v, want %s refused", fe, tc.field)
			}
		})
	}
}

func TestProviderDefaultRule(t *testing.T) {
	p := func(id string, def bool) Provider { return Provider{Kind: ProviderFCM, ID: id, Default: def} }
	if !newProviderIsDefault(nil) || newProviderIsDefault([]Provider{p("a", true)}) {
		t.Fatal("the first provider of a kind is its default, and only the first")
	}
	for _, tc := range []struct {
		name     string
		existing []Provider
		id       string
		code     Code
	}{
		{"the only one, default", []Provider{p("a", true)}, "a", ""},
		{"not the default", []Provider{p("a", true), p("b", false)}, "b", ""},
		{"the default among others", []Provider{p("a", true), p("b", false)}, "a", CodeBadRequest},
		{"unknown", []Provider{p("a", true)}, "z", CodeProviderNotFound},
		{"none at all", nil, "a", CodeProviderNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ErrorCode(deletableProvider(ProviderFCM, tc.existing, tc.id)); got != tc.code {
				t.Fatalf("got %q, want %q", got, tc.code)
			}
		})
	}
}

func TestProviderID(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"fcm-provider-1", "fcm-provider-1", true},
		{"FCM_Prod", "fcm_prod", true},
		{"default", "", false},
		{"DEFAULT", "", false},
		{"", "", false},
		{"a/b", "", false},
		{strings.Repeat("a", 50), strings.Repeat("a", 50), true},
		{strings.Repeat("a", 51), "", false},
	} {
		fe := fieldErrors{}
		got := fe.providerID(tc.in)
		if (len(fe) == 0) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("providerID(%q) = %q, %v", tc.in, got, fe)
		}
	}
}

func TestSecretHint(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"short", "********"},
		{"fifteen-chars-x", "********"},
		{"71c2301435733997e83db7a3445bc57", "********bc57"},
		{"SG.9ipFP4b17yT-Fff2GGrH8FF0GqdkBohXAEI4GnTSj9Q=", "********j9Q="},
		{"ünïcödé-pässwörd-1234", "********1234"},
	} {
		if got := SecretHint(tc.in); got != tc.want {
			t.Errorf("SecretHint(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSealedCredentialsAreBound(t *testing.T) {
	key := deriveKey([]byte("k"))
	p := Provider{AppID: "demo", Kind: ProviderTwilio}
	if err := sealSecret(key, &p, "71c2301435733997e83db7a3445bc57"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(p.Secret), "71c2301435733997") {
		t.Fatal("sealed in the clear")
	}
	if b, err := open(key, p.Secret, aad("demo", "", ProviderTwilio.purpose())); err != nil || string(b) != "71c2301435733997e83db7a3445bc57" {
		t.Fatalf("open: %q %v", b, err)
	}
	// Another app, row or purpose does not open it: each kind has its own purpose.
	for _, ad := range [][]byte{aad("other", "", ProviderTwilio.purpose()), aad("demo", "x", ProviderTwilio.purpose()), aad("demo", "", ProviderSendGrid.purpose())} {
		if _, err := open(key, p.Secret, ad); err == nil {
			t.Fatalf("opened with %q", ad)
		}
	}
	seen := map[string]bool{"basic": true, "signing": true} // the webhooks' purposes
	for _, k := range []ProviderKind{ProviderFCM, ProviderAPNs, ProviderTwilio, ProviderSendGrid, ProviderCustomPush, ProviderCustomSMS, ProviderCustomEmail} {
		if seen[k.purpose()] {
			t.Fatalf("purpose %q used twice", k.purpose())
		}
		seen[k.purpose()] = true
	}
}

// TestProviderKinds pins each kind's spec: stored credentials are sealed under its purpose,
// sends and the log name it by its Log, and messages by its Name.
func TestProviderKinds(t *testing.T) {
	want := map[ProviderKind]ProviderSpec{
		ProviderFCM: {Kind: ProviderFCM, Name: "FCM", Channel: ChannelPush, Log: LogProviderFCM, IDs: true, Tokens: []PushTokenKind{PushFCM},
			purpose: "fcm_private_key"},
		ProviderAPNs: {Kind: ProviderAPNs, Name: "APNs", Channel: ChannelPush, Log: LogProviderAPNs, IDs: true,
			Tokens: []PushTokenKind{PushAPNs, PushVoIP}, purpose: "apns_p8_key"},
		ProviderTwilio:   {Kind: ProviderTwilio, Name: "Twilio", Channel: ChannelSMS, Log: LogProviderTwilio, purpose: "twilio_auth_token"},
		ProviderSendGrid: {Kind: ProviderSendGrid, Name: "SendGrid", Channel: ChannelEmail, Log: LogProviderSendGrid, purpose: "sendgrid_api_key"},
		ProviderCustomPush: {Kind: ProviderCustomPush, Name: "custom push", Channel: ChannelPush, Log: LogProviderCustom, Custom: true,
			purpose: "custom_push_basic_password"},
		ProviderCustomSMS: {Kind: ProviderCustomSMS, Name: "custom sms", Channel: ChannelSMS, Log: LogProviderCustom, Custom: true,
			purpose: "custom_sms_basic_password"},
		ProviderCustomEmail: {Kind: ProviderCustomEmail, Name: "custom email", Channel: ChannelEmail, Log: LogProviderCustom, Custom: true,
			purpose: "custom_email_basic_password"},
	}
	got := map[ProviderKind]ProviderSpec{}
	for k, sp := range providerKinds {
		got[k] = *sp
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(ProviderSpec{})); d != "" {
		t.Errorf("kinds (-want +got):\n%s", d)
	}
	for _, tk := range []PushTokenKind{PushFCM, PushAPNs, PushVoIP} {
		if pk := tk.ProviderKind(); !slices.Contains(want[pk].Tokens, tk) {
			t.Errorf("%s tokens go to %q", tk, pk)
		}
	}
	for _, c := range []Channel{ChannelPush, ChannelSMS, ChannelEmail} {
		if k := Custom(c); k == nil || !k.Custom || k.Channel != c || providerKinds[k.Kind] != &k.ProviderSpec {
			t.Errorf("Custom(%s) = %+v", c, k)
		}
	}
}
