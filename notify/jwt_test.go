package notify

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSignJWT(t *testing.T) {
	testKeys(t)
	claims := map[string]any{"iss": "TEAM123456", "iat": 1800000000}

	es, err := signES256(ecKey, jwtHeader{Kid: "KEY1234567"}, claims)
	if err != nil {
		t.Fatal(err)
	}
	h, c := jwtParts(t, es, &ecKey.PublicKey) // verifies the r||s signature
	if diff := cmp.Diff(map[string]any{"alg": "ES256", "kid": "KEY1234567"}, h); diff != "" {
		t.Errorf("ES256 header (-want +got):\n%s", diff)
	}
	if c["iss"] != "TEAM123456" || num(t, c["iat"]) != 1800000000 {
		t.Errorf("ES256 claims %v", c)
	}

	rs, err := signRS256(rsaKey, jwtHeader{Typ: "JWT"}, claims)
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := jwtParts(t, rs, &rsaKey.PublicKey); h["alg"] != "RS256" || h["typ"] != "JWT" {
		t.Errorf("RS256 header %v", h)
	}
}

// The keys are read from PKCS#8, as the credential files have them, and from the older
// PKCS#1 and SEC 1 encodings; other keys are refused.
func TestParseKeys(t *testing.T) {
	testKeys(t)
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)})
	sec1der, _ := x509.MarshalECPrivateKey(ecKey)
	sec1 := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1der})
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)

	for name, in := range map[string][]byte{"PKCS#8": rsaPEM, "PKCS#1": pkcs1} {
		if k, err := parseRSAKey(in); err != nil || !k.Equal(rsaKey) {
			t.Errorf("RSA %s: %v", name, err)
		}
	}
	for name, in := range map[string][]byte{"PKCS#8": ecPEM, "SEC 1": sec1} {
		if k, err := parseP256Key(in); err != nil || !k.Equal(ecKey) {
			t.Errorf("P-256 %s: %v", name, err)
		}
	}
	for name, in := range map[string][]byte{"EC as RSA": ecPEM, "garbage": []byte("key"),
		"certificate": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}})} {
		if _, err := parseRSAKey(in); err == nil {
			t.Errorf("RSA %s: no error", name)
		}
	}
	for name, in := range map[string][]byte{"RSA as EC": rsaPEM, "P-384": pkcs8PEM(p384), "garbage": []byte("key")} {
		if _, err := parseP256Key(in); err == nil {
			t.Errorf("P-256 %s: no error", name)
		}
	}
}
