package chat

import (
	"strings"
	"sync"
	"time"
)

// keyCache remembers resolved credentials and apps for a short TTL so the hot path does not
// read them from the database on every request: API keys and auth tokens by hash, apps by
// id. Only found entries are cached: a key or token created on another node works at once.
// The TTL bounds how long one deleted on another node keeps working here; on this node
// deletion evicts at once. Permission policies (policy.go) are cached the same way, by app,
// and groups' scope permissions by app and guid, found or empty: a change made on another
// node applies here within the TTL.
type keyCache struct {
	keys     *ttlCache[APIKey]
	apps     *ttlCache[App]
	tokens   *ttlCache[AuthToken]
	policies *ttlCache[*Policy]
	scopes   *ttlCache[ScopeRules]
	// webhooks are each app's subscribed triggers (webhookevents.go).
	webhooks *ttlCache[[]string]
	// notifiers says whether each app has a notification provider (notifdelivery.go).
	notifiers *ttlCache[bool]
	// agents maps each app's agents to whether each is active (agents.go).
	agents *ttlCache[map[string]bool]
	// content is what the sends of one notification event share (notiftext.go).
	content *ttlCache[eventContent]
}

func newKeyCache(ttl time.Duration, now func() time.Time) *keyCache {
	return &keyCache{keys: newTTLCache[APIKey](ttl, now), apps: newTTLCache[App](ttl, now), tokens: newTTLCache[AuthToken](ttl, now),
		policies: newTTLCache[*Policy](ttl, now), scopes: newTTLCache[ScopeRules](ttl, now),
		webhooks: newTTLCache[[]string](ttl, now), notifiers: newTTLCache[bool](ttl, now),
		content: newTTLCache[eventContent](ttl, now), agents: newTTLCache[map[string]bool](ttl, now)}
}

func (c *keyCache) evictKey(hash string) { c.keys.evict(hash) }

// maxCached bounds each map's memory; past it the map starts over rather than tracking
// recency.
const maxCached = 10000

// ttlCache is a map whose entries expire after ttl. An eviction bumps its generation, and
// put stores only if the generation is still the one read before the database lookup it
// caches: a lookup that raced a delete on this node cannot bring the deleted entry back.
type ttlCache[V any] struct {
	ttl time.Duration
	now func() time.Time

	mu  sync.RWMutex
	m   map[string]ttlEntry[V]
	gen uint64
}

type ttlEntry[V any] struct {
	v       V
	expires time.Time
}

func newTTLCache[V any](ttl time.Duration, now func() time.Time) *ttlCache[V] {
	return &ttlCache[V]{ttl: ttl, now: now, m: map[string]ttlEntry[V]{}}
}

func (c *ttlCache[V]) get(k string) (V, bool) {
	c.mu.RLock()
	e, ok := c.m[k]
	c.mu.RUnlock()
	if !ok || c.now().After(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// generation is read before a database lookup whose result is then put.
func (c *ttlCache[V]) generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

// put stores v under k unless something was evicted since gen was read.
func (c *ttlCache[V]) put(k string, v V, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if len(c.m) >= maxCached {
		c.m = map[string]ttlEntry[V]{}
	}
	c.m[k] = ttlEntry[V]{v: v, expires: c.now().Add(c.ttl)}
}

func (c *ttlCache[V]) evict(k string) {
	c.mu.Lock()
	delete(c.m, k)
	c.gen++
	c.mu.Unlock()
}

// evictIf removes every entry for which drop is true.
func (c *ttlCache[V]) evictIf(drop func(V) bool) {
	c.mu.Lock()
	for k, e := range c.m {
		if drop(e.v) {
			delete(c.m, k)
		}
	}
	c.gen++
	c.mu.Unlock()
}

// forget evicts from these caches what committed changes made
// stale, on every node: keys, tokens, apps, permission policies, webhooks' triggers,
// notification providers and agents. Their TTL (--key-cache-ttl) stays the bound should a
// change not reach a node; with the feed, one made elsewhere applies here within the change
// log's latency.
func (c *keyCache) forget(changes []Change) {
	for _, ch := range changes {
		app := ch.App
		switch ch.Kind {
		case ChangeToken, ChangeUser:
			if ch.Subject == PresenceSubject {
				continue
			}
			uids := map[string]bool{}
			for _, uid := range ch.UIDs {
				uids[uid] = true
			}
			c.tokens.evictIf(func(t AuthToken) bool { return t.AppID == app && (len(uids) == 0 || uids[t.UID]) })
		case ChangeSettings:
			switch ch.Subject {
			case SettingApp:
				c.apps.evict(app)
				c.keys.evictIf(func(k APIKey) bool { return k.AppID == app })
				c.tokens.evictIf(func(t AuthToken) bool { return t.AppID == app })
				fallthrough
			case SettingRoles, SettingPermissions, SettingFeatures:
				c.policies.evict(app)
				c.scopes.evictKeysIf(func(k string) bool { return strings.HasPrefix(k, app+"\x00") })
			case SettingAPIKeys:
				c.keys.evictIf(func(k APIKey) bool { return k.AppID == app })
			case SettingWebhooks:
				c.webhooks.evict(app)
			case SettingNotification:
				c.notifiers.evict(app)
			case SettingAgents:
				c.agents.evict(app)
			}
		case ChangeResync:
			for _, tc := range []interface{ evictKeysIf(func(string) bool) }{c.keys, c.apps, c.tokens, c.policies, c.scopes, c.webhooks, c.notifiers, c.agents, c.content} {
				tc.evictKeysIf(func(string) bool { return true })
			}
		}
	}
}
