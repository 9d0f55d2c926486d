package chat

import (
	"sync"
	"time"
)

// keyCache remembers resolved keys and apps for a short TTL so the hot path does not read
// them from the database on every request. Only found entries are cached: a key created on
// another node works at once. The TTL bounds how long a key deleted on another node keeps
// working here; on this node deletion evicts at once.
type keyCache struct {
	ttl time.Duration
	now func() time.Time

	mu   sync.RWMutex
	keys map[string]cachedKey // by key hash
	apps map[string]cachedApp // by app id
}

type cachedKey struct {
	key     APIKey
	expires time.Time
}

type cachedApp struct {
	app     App
	expires time.Time
}

// maxCached bounds memory; past it the cache starts over rather than tracking recency.
const maxCached = 10000

func newKeyCache(ttl time.Duration, now func() time.Time) *keyCache {
	return &keyCache{ttl: ttl, now: now, keys: map[string]cachedKey{}, apps: map[string]cachedApp{}}
}

func (c *keyCache) key(hash string) (APIKey, bool) {
	c.mu.RLock()
	e, ok := c.keys[hash]
	c.mu.RUnlock()
	if !ok || c.now().After(e.expires) {
		return APIKey{}, false
	}
	return e.key, true
}

func (c *keyCache) putKey(k APIKey) {
	c.mu.Lock()
	if len(c.keys) >= maxCached {
		c.keys = map[string]cachedKey{}
	}
	c.keys[k.Hash] = cachedKey{key: k, expires: c.now().Add(c.ttl)}
	c.mu.Unlock()
}

func (c *keyCache) evictKey(hash string) {
	c.mu.Lock()
	delete(c.keys, hash)
	c.mu.Unlock()
}

func (c *keyCache) app(id string) (App, bool) {
	c.mu.RLock()
	e, ok := c.apps[id]
	c.mu.RUnlock()
	if !ok || c.now().After(e.expires) {
		return App{}, false
	}
	return e.app, true
}

func (c *keyCache) putApp(a App) {
	c.mu.Lock()
	if len(c.apps) >= maxCached {
		c.apps = map[string]cachedApp{}
	}
	c.apps[a.ID] = cachedApp{app: a, expires: c.now().Add(c.ttl)}
	c.mu.Unlock()
}
