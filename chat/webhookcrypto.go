package chat

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"errors"
)

// Webhook secrets and Basic-auth credentials, and notification providers' credentials
// (notifproviders.go), must be readable again to sign and to authenticate, so they are sealed
// rather than hashed: AES-256-GCM with a key derived from the webhook key (NATTER_WEBHOOK_KEY,
// or one natter generates and keeps in server_secrets), bound to their app, row and purpose
// so a sealed value cannot be moved to another row.
// docs/security.md says what this does and does not protect against.

func deriveKey(raw []byte) []byte {
	h := sha256.New()
	h.Write([]byte("natter webhook key v1\x00"))
	h.Write(raw)
	return h.Sum(nil)
}

func aad(appID, webhookID, purpose string) []byte {
	return []byte(purpose + "\x00" + appID + "\x00" + webhookID)
}

// seal encrypts plain: a version byte, the nonce, then the ciphertext and tag.
func seal(key, plain, ad []byte) ([]byte, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 1+gcm.NonceSize(), 1+gcm.NonceSize()+len(plain)+gcm.Overhead())
	out[0] = 1
	rand.Read(out[1:])
	return gcm.Seal(out, out[1:], plain, ad), nil
}

func open(key, sealed, ad []byte) ([]byte, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	n := gcm.NonceSize()
	if len(sealed) < 1+n || sealed[0] != 1 {
		return nil, errors.New("sealed value: unknown format")
	}
	plain, err := gcm.Open(nil, sealed[1:1+n], sealed[1+n:], ad)
	if err != nil {
		return nil, errors.New("sealed value: does not open with this webhook key")
	}
	return plain, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
