package chat

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/mail"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The credentials of notification providers: what each must look like to be stored, and the
// masked form answers show of a secret. A credential is checked when it is stored, so that
// a bad one is a 400 naming its field now rather than a failed delivery later; slice 3
// (notify) gets them parsed (FCMCredentials, APNsCredentials).

// Limits of provider credentials and settings.
const (
	MaxPEMLen          = 8192 // a 4096-bit RSA key in PEM is about 3.3 KB
	MaxFilenameLen     = 255
	MaxProjectIDLen    = 100
	MaxClientEmailLen  = 255
	MaxPrivateKeyIDLen = 100
	MaxSecretLen       = 255 // auth tokens and API keys
	MaxSenderNameLen   = 100
	MaxTemplateIDLen   = 100
	MaxBundleIDLen     = 155
	maskedSecret       = "********"
	minHintedSecretLen = 16 // shorter secrets show no characters at all
)

// ServiceAccount is a Google service-account credential as FCM's HTTP v1 API needs it: the
// fields of the JSON file the Firebase console gives. Its other fields (client_id, the
// token URI, …) are not kept: natter talks to the endpoints it is configured with.
type ServiceAccount struct {
	Type         string `json:"type"`
	ProjectID    string `json:"project_id"`
	ClientEmail  string `json:"client_email"`
	PrivateKeyID string `json:"private_key_id"`
	PrivateKey   string `json:"private_key"`
}

var (
	projectIDPattern = regexp.MustCompile(`^[a-z][a-z0-9-]{4,28}[a-z0-9]$`) // Google's rule for project ids
	appleIDPattern   = regexp.MustCompile(`^[A-Z0-9]{10}$`)                 // APNs key ids and team ids
	bundleIDPattern  = regexp.MustCompile(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$`)
	twilioSIDPattern = regexp.MustCompile(`^AC[0-9a-fA-F]{32}$`)
	e164Pattern      = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)
	digitsPattern    = regexp.MustCompile(`^[0-9]{1,20}$`)
)

// serviceAccount checks a service account under field (serviceAccountCreds) and returns its
// RSA private key. type, when sent, must be service_account; project_id, client_email and
// private_key are required.
func (f fieldErrors) serviceAccount(field string, sa ServiceAccount) *rsa.PrivateKey {
	if sa.Type != "" && sa.Type != "service_account" {
		f.add(field+".type", "The "+field+".type must be service_account.")
	}
	switch {
	case sa.ProjectID == "":
		f.add(field+".project_id", "The "+field+".project_id field is required.")
	case len(sa.ProjectID) > MaxProjectIDLen || !projectIDPattern.MatchString(sa.ProjectID):
		f.add(field+".project_id", "The "+field+".project_id is not a Google Cloud project id.")
	}
	switch {
	case sa.ClientEmail == "":
		f.add(field+".client_email", "The "+field+".client_email field is required.")
	case len(sa.ClientEmail) > MaxClientEmailLen || !plainEmail(sa.ClientEmail):
		f.add(field+".client_email", "The "+field+".client_email must be the service account's email address.")
	}
	if len(sa.PrivateKeyID) > MaxPrivateKeyIDLen || !printable(sa.PrivateKeyID) {
		f.add(field+".private_key_id", "The "+field+".private_key_id must be at most 100 visible characters.")
	}
	if sa.PrivateKey == "" {
		f.add(field+".private_key", "The "+field+".private_key field is required.")
		return nil
	}
	key, err := ParseRSAPrivateKey(sa.PrivateKey)
	if err != nil {
		f.add(field+".private_key", "The "+field+".private_key "+err.Error()+".")
	}
	return key
}

// ParseRSAPrivateKey reads a PEM RSA private key: PKCS #8 ("PRIVATE KEY", as Google's
// service accounts have it) or PKCS #1 ("RSA PRIVATE KEY"), of at least 2048 bits. Its error
// says what is wrong without quoting the key.
func ParseRSAPrivateKey(text string) (*rsa.PrivateKey, error) {
	block, err := onePEM(text)
	if err != nil {
		return nil, err
	}
	var key any
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, errors.New("must be a PEM private key (BEGIN PRIVATE KEY)")
	}
	if err != nil {
		return nil, errors.New("does not parse as a private key")
	}
	rk, ok := key.(*rsa.PrivateKey)
	switch {
	case !ok:
		return nil, errors.New("must be an RSA key")
	case rk.N.BitLen() < 2048:
		return nil, errors.New("must be an RSA key of at least 2048 bits")
	}
	return rk, nil
}

// ParseAPNsKey reads an APNs token-signing key: the .p8 file Apple gives, a PEM PKCS #8
// ("PRIVATE KEY") EC key on the P-256 curve.
func ParseAPNsKey(text string) (*ecdsa.PrivateKey, error) {
	block, err := onePEM(text)
	if err != nil {
		return nil, err
	}
	if block.Type != "PRIVATE KEY" {
		return nil, errors.New("must be a PEM private key (BEGIN PRIVATE KEY), as in Apple's .p8 file")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, errors.New("does not parse as a private key")
	}
	ek, ok := key.(*ecdsa.PrivateKey)
	if !ok || ek.Curve != elliptic.P256() {
		return nil, errors.New("must be an EC key on the P-256 curve")
	}
	return ek, nil
}

// onePEM decodes text as exactly one PEM block with nothing but white space around it. A
// key pasted into JSON often arrives with its line breaks written as the two characters \n:
// those are read as line breaks.
func onePEM(text string) (*pem.Block, error) {
	if len(text) > MaxPEMLen {
		return nil, errors.New("may not be greater than 8192 characters")
	}
	if !strings.Contains(text, "\n") {
		text = strings.ReplaceAll(text, `\n`, "\n")
	}
	block, rest := pem.Decode([]byte(strings.TrimSpace(text)))
	if block == nil {
		return nil, errors.New("must be a PEM-encoded private key")
	}
	if len(strings.TrimSpace(string(rest))) != 0 {
		return nil, errors.New("must hold one PEM block and nothing else")
	}
	if len(block.Headers) != 0 {
		return nil, errors.New("must not be encrypted")
	}
	return block, nil
}

// secretText checks a secret that is sent as it is used (an auth token, an API key): 1–255
// visible ASCII characters. Its messages never quote it.
func (f fieldErrors) secretText(field, v string, required bool) {
	switch {
	case v == "":
		if required {
			f.add(field, "The "+field+" field is required.")
		}
	case len(v) > MaxSecretLen:
		f.add(field, "The "+field+" may not be greater than 255 characters.")
	case !printable(v):
		f.add(field, "The "+field+" may only contain visible ASCII characters.")
	}
}

// email checks an email address field.
func (f fieldErrors) email(field, v string, required bool) {
	switch {
	case v == "":
		if required {
			f.add(field, "The "+field+" field is required.")
		}
	case len(v) > MaxEmailLen || !plainEmail(v):
		f.add(field, "The "+field+" must be an email address.")
	}
}

// plainEmail reports whether v is a bare address, local@domain, with no display name.
func plainEmail(v string) bool {
	a, err := mail.ParseAddress(v)
	return err == nil && a.Address == v && a.Name == "" && strings.Contains(v[strings.LastIndexByte(v, '@')+1:], ".")
}

// SecretHint is the masked form of a secret that answers show: asterisks, then its last four
// characters when it is long enough (16 or more) that they give nothing useful away.
func SecretHint(secret string) string {
	if secret == "" {
		return ""
	}
	if utf8.RuneCountInString(secret) < minHintedSecretLen {
		return maskedSecret
	}
	r := []rune(secret)
	return maskedSecret + string(r[len(r)-4:])
}
