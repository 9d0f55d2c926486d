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
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"
)

// Test keys, generated once per test binary and PEM-encoded as the real credential files
// are (PKCS#8 for both).
var (
	keysOnce sync.Once
	rsaKey   *rsa.PrivateKey
	rsaPEM   []byte
	ecKey    *ecdsa.PrivateKey
	ecPEM    []byte
)

func testKeys(tb testing.TB) {
	tb.Helper()
	keysOnce.Do(func() {
		var err error
		if rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if ecKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			panic(err)
		}
		rsaPEM, ecPEM = pkcs8PEM(rsaKey), pkcs8PEM(ecKey)
	})
}

func pkcs8PEM(key any) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// serviceAccount is a service account key file as the Firebase console gives it.
func serviceAccount(tb testing.TB) []byte {
	testKeys(tb)
	b, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "proj-1", "private_key_id": "kid-1",
		"private_key": string(rsaPEM), "client_email": "natter@proj-1.iam.gserviceaccount.com",
		"client_id": "1", "token_uri": "https://evil.example/token",
	})
	return b
}

// clock is an injectable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Unix(1_800_000_000, 0)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// jwtParts splits and decodes a compact JWS, verifying its signature with pub (RS256 or
// ES256 as the header says), and fails the test if anything is off.
func jwtParts(tb testing.TB, token string, pub crypto.PublicKey) (header, claims map[string]any) {
	tb.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		tb.Fatalf("JWT has %d parts", len(parts))
	}
	dec := func(s string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			tb.Fatalf("JWT part is not base64url without padding: %v", err)
		}
		return b
	}
	if err := json.Unmarshal(dec(parts[0]), &header); err != nil {
		tb.Fatalf("JWT header: %v", err)
	}
	d := json.NewDecoder(strings.NewReader(string(dec(parts[1]))))
	d.UseNumber()
	if err := d.Decode(&claims); err != nil {
		tb.Fatalf("JWT claims: %v", err)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	sig := dec(parts[2])
	switch header["alg"] {
	case "RS256":
		if err := rsa.VerifyPKCS1v15(pub.(*rsa.PublicKey), crypto.SHA256, digest[:], sig); err != nil {
			tb.Fatalf("RS256 signature: %v", err)
		}
	case "ES256":
		if len(sig) != 64 {
			tb.Fatalf("ES256 signature is %d bytes, want r||s of 64", len(sig))
		}
		der, _ := asn1.Marshal(struct{ R, S *big.Int }{new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])})
		if !ecdsa.VerifyASN1(pub.(*ecdsa.PublicKey), digest[:], der) {
			tb.Fatal("ES256 signature does not verify")
		}
	default:
		tb.Fatalf("JWT alg %v", header["alg"])
	}
	return header, claims
}

// num is a JSON number claim as int64.
func num(tb testing.TB, v any) int64 {
	tb.Helper()
	n, ok := v.(json.Number)
	if !ok {
		tb.Fatalf("claim %v is not a number", v)
	}
	i, err := n.Int64()
	if err != nil {
		tb.Fatalf("claim %v: %v", v, err)
	}
	return i
}

// outcome is a Result without its latency and error text, for comparisons.
type got struct {
	Status        int
	OK            bool
	Retry         bool
	RetryAfter    time.Duration
	InvalidToken  bool
	Misconfigured bool
	ID            string
	Reason        string
}

func summary(r Result) got {
	return got{r.Status, r.OK(), r.Retry, r.RetryAfter, r.InvalidToken, r.Misconfigured, r.ProviderMessageID, r.Reason}
}

// noSecrets fails if a result's error shows any of the secrets.
func noSecrets(tb testing.TB, r Result, secrets ...string) {
	tb.Helper()
	if r.Err == nil {
		return
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(r.Err.Error(), s) {
			tb.Errorf("error %q shows a secret", r.Err)
		}
	}
}
