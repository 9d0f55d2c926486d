package notify

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
)

// The JWTs the providers take (RFC 7519, JWS compact serialisation): FCM's OAuth2
// assertion, RS256, and APNs' provider token, ES256.

type jwtHeader struct {
	Alg string `json:"alg"`
	Typ string `json:"typ,omitempty"`
	Kid string `json:"kid,omitempty"`
}

// signingInput is base64url(header) "." base64url(claims).
func signingInput(h jwtHeader, claims any) (string, []byte, error) {
	hb, err := json.Marshal(h)
	if err != nil {
		return "", nil, err
	}
	cb, err := json.Marshal(claims)
	if err != nil {
		return "", nil, err
	}
	in := base64.RawURLEncoding.EncodeToString(hb) + "." + base64.RawURLEncoding.EncodeToString(cb)
	sum := sha256.Sum256([]byte(in))
	return in, sum[:], nil
}

// signRS256 is RSASSA-PKCS1-v1_5 with SHA-256.
func signRS256(key *rsa.PrivateKey, h jwtHeader, claims any) (string, error) {
	h.Alg = "RS256"
	in, digest, err := signingInput(h, claims)
	if err != nil {
		return "", err
	}
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, digest)
	if err != nil {
		return "", err
	}
	return in + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// signES256 is ECDSA P-256 with SHA-256, the signature as JWS wants it (RFC 7518 §3.4): r
// and s as 32-byte big-endian integers, concatenated, not the ASN.1 DER that crypto/ecdsa
// gives.
func signES256(key *ecdsa.PrivateKey, h jwtHeader, claims any) (string, error) {
	h.Alg = "ES256"
	in, digest, err := signingInput(h, claims)
	if err != nil {
		return "", err
	}
	der, err := ecdsa.SignASN1(rand.Reader, key, digest)
	if err != nil {
		return "", err
	}
	var rs struct{ R, S *big.Int }
	if _, err := asn1.Unmarshal(der, &rs); err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	rs.R.FillBytes(sig[:32])
	rs.S.FillBytes(sig[32:])
	return in + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// parseRSAKey reads a PEM RSA private key: PKCS#8 ("PRIVATE KEY", as in a Google service
// account file) or PKCS#1. Its errors never quote the key.
func parseRSAKey(pemBytes []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("the private key is not PEM")
	}
	switch block.Type {
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, errors.New("the private key is not a valid PKCS#8 key")
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, errors.New("the private key is not an RSA key")
		}
		return rk, nil
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, errors.New("the private key is not a valid PKCS#1 key")
		}
		return k, nil
	}
	return nil, errors.New("the PEM block is not a private key")
}

// parseP256Key reads a PEM ECDSA P-256 private key: PKCS#8 (an APNs .p8 file) or SEC 1.
// Its errors never quote the key.
func parseP256Key(pemBytes []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("the key is not PEM")
	}
	var key *ecdsa.PrivateKey
	switch block.Type {
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, errors.New("the key is not a valid PKCS#8 key")
		}
		ek, ok := k.(*ecdsa.PrivateKey)
		if !ok {
			return nil, errors.New("the key is not an ECDSA key")
		}
		key = ek
	case "EC PRIVATE KEY":
		k, err := x509.ParseECPrivateKey(block.Bytes)
		if err != nil {
			return nil, errors.New("the key is not a valid EC key")
		}
		key = k
	default:
		return nil, errors.New("the PEM block is not a private key")
	}
	if key.Curve != elliptic.P256() {
		return nil, errors.New("the key is not on the P-256 curve")
	}
	return key, nil
}
