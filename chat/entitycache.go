package chat

import (
	"context"
	"strings"
	"sync/atomic"
	"time"
)

// entityCache holds, per node, what requests read on every call and rarely changes: users,
// blocks between two users, groups (as nobody in particular sees them), memberships and
// roles. The change feed keeps it true: a change
// this node commits evicts what it touched before the write answers (so a writer reads its
// own write), and one another node commits evicts it when the change log brings it here
// (FollowChanges: a few milliseconds). While this node cannot follow the log (its listening
// connection is down, PostgreSQL) the cache is emptied and not used; until FollowChanges has
// caught up once on PostgreSQL it is not used either. Entries also expire after entityTTL,
// the bound for a writer outside the feed (another process on the same SQLite file).
//
// Only what was found is cached, so an entity created on another node is seen at once.
// Entries are keyed by app first: one app's rows are never another's.
type entityCache struct {
	live    atomic.Bool
	users   *ttlCache[User]
	blocks  *ttlCache[[2]bool]
	members *ttlCache[Membership]
	roles   *ttlCache[Role]
	// groups as no viewer sees them: a viewer's membership comes from members.
	groups *ttlCache[Group]
	// An app's notification providers and settings, which each notification's decisions
	// and sending read (keyed by the app alone).
	providers     *ttlCache[[]Provider]
	notifSettings *ttlCache[NotificationSettings]
}

// entityTTL bounds an entry's life whatever the feed says.
const entityTTL = 30 * time.Second

func newEntityCache(now func() time.Time, live bool) *entityCache {
	c := &entityCache{users: newTTLCache[User](entityTTL, now), blocks: newTTLCache[[2]bool](entityTTL, now),
		members: newTTLCache[Membership](entityTTL, now), roles: newTTLCache[Role](entityTTL, now),
		groups:    newTTLCache[Group](entityTTL, now),
		providers: newTTLCache[[]Provider](entityTTL, now), notifSettings: newTTLCache[NotificationSettings](entityTTL, now)}
	c.live.Store(live)
	return c
}

func key2(a, b string) string    { return a + "\x00" + b }
func key3(a, b, c string) string { return a + "\x00" + b + "\x00" + c }

// setLive turns the cache on or off; either way it starts empty.
func (c *entityCache) setLive(live bool) {
	c.live.Store(live)
	c.clear()
}

func (c *entityCache) clear() {
	all := func(string) bool { return true }
	c.users.evictKeysIf(all)
	c.blocks.evictKeysIf(all)
	c.members.evictKeysIf(all)
	c.roles.evictKeysIf(all)
	c.groups.evictKeysIf(all)
	c.providers.evictKeysIf(all)
	c.notifSettings.evictKeysIf(all)
}

// apply evicts what committed changes made stale: the feed's listener.
func (c *entityCache) apply(changes []Change) {
	for _, ch := range changes {
		app := ch.App + "\x00"
		inApp := func(k string) bool { return strings.HasPrefix(k, app) }
		switch ch.Kind {
		case ChangeUser:
			switch {
			case ch.App == "": // users of any app (presence that expired)
				c.users.evictKeysIf(func(string) bool { return true })
			case len(ch.UIDs) == 0:
				c.users.evictKeysIf(inApp)
				if ch.Subject == UserRemoved {
					c.blocks.evictKeysIf(inApp)
					c.members.evictKeysIf(inApp)
					c.groups.evictKeysIf(inApp)
				}
			default:
				for _, uid := range ch.UIDs {
					c.users.evict(key2(ch.App, uid))
				}
				if ch.Subject != UserRemoved {
					continue
				}
				c.groups.evictKeysIf(inApp) // its groups' member counts, and those it owned
				// A user deleted also leaves its groups and blocks: the entries naming it
				// go (blocks are keyed app, blocker, blocked; memberships app, guid, uid).
				for _, uid := range ch.UIDs {
					first, last := app+uid+"\x00", "\x00"+uid
					c.blocks.evictKeysIf(func(k string) bool {
						return strings.HasPrefix(k, first) || inApp(k) && strings.HasSuffix(k, last)
					})
					c.members.evictKeysIf(func(k string) bool { return inApp(k) && strings.HasSuffix(k, last) })
				}
			}
		case ChangeBlock:
			if len(ch.UIDs) < 2 {
				c.blocks.evictKeysIf(inApp)
				continue
			}
			for _, other := range ch.UIDs[1:] {
				c.blocks.evict(key3(ch.App, ch.UIDs[0], other))
				c.blocks.evict(key3(ch.App, other, ch.UIDs[0]))
			}
		case ChangeMember, ChangeGroup:
			// A group's row holds its member count: a member change is its change too.
			if ch.GUID == "" {
				c.groups.evictKeysIf(inApp)
			} else {
				c.groups.evict(key2(ch.App, ch.GUID))
			}
			if ch.GUID == "" || len(ch.UIDs) == 0 || ch.Kind == ChangeGroup {
				group := app + ch.GUID + "\x00"
				c.members.evictKeysIf(func(k string) bool {
					return ch.GUID == "" && inApp(k) || strings.HasPrefix(k, group)
				})
				continue
			}
			for _, uid := range ch.UIDs {
				c.members.evict(key3(ch.App, ch.GUID, uid))
			}
		case ChangeSettings:
			switch ch.Subject {
			case SettingRoles, SettingPermissions, SettingFeatures, SettingApp:
				c.roles.evictKeysIf(inApp)
			}
			switch ch.Subject {
			case SettingNotification, SettingApp:
				c.providers.evict(key2(ch.App, ""))
				c.notifSettings.evict(key2(ch.App, ""))
			}
			if ch.Subject == SettingImport { // imported members count in their groups' rows
				c.groups.evictKeysIf(inApp)
			}
			if ch.Subject == SettingApp { // an app deleted takes everything of it along
				c.users.evictKeysIf(inApp)
				c.groups.evictKeysIf(inApp)
				c.blocks.evictKeysIf(inApp)
				c.members.evictKeysIf(inApp)
			}
		case ChangeResync:
			c.clear()
		}
	}
}

// evictKeysIf removes every entry whose key drop selects.
func (c *ttlCache[V]) evictKeysIf(drop func(k string) bool) {
	c.mu.Lock()
	for k := range c.m {
		if drop(k) {
			delete(c.m, k)
		}
	}
	c.gen++
	c.mu.Unlock()
}

// readThrough serves k from tc while the cache is live, and otherwise, or on a miss, reads
// it; a read that raced an eviction is not kept (ttlCache.put).
func readThrough[V any](c *entityCache, tc *ttlCache[V], k string, read func() (V, error)) (V, error) {
	if !c.live.Load() {
		return read()
	}
	if v, ok := tc.get(k); ok {
		return v, nil
	}
	gen := tc.generation()
	v, err := read()
	if err == nil {
		tc.put(k, v, gen)
	}
	return v, err
}

// cachedProviders is store.AllProviders through the cache: the caller must not change
// the list.
func (s *Service) cachedProviders(ctx context.Context, appID string) ([]Provider, error) {
	return readThrough(s.entities, s.entities.providers, key2(appID, ""), func() ([]Provider, error) { return s.store.AllProviders(ctx, appID) })
}

// cachedNotificationSettings is store.NotificationSettings through the cache.
func (s *Service) cachedNotificationSettings(ctx context.Context, appID string) (NotificationSettings, error) {
	return readThrough(s.entities, s.entities.notifSettings, key2(appID, ""), func() (NotificationSettings, error) {
		return s.store.NotificationSettings(ctx, appID)
	})
}

// cachedUser is store.User through the cache.
func (s *Service) cachedUser(ctx context.Context, appID, uid string) (User, error) {
	return readThrough(s.entities, s.entities.users, key2(appID, uid), func() (User, error) { return s.store.User(ctx, appID, uid) })
}

// cachedBlocks is store.Blocks through the cache.
func (s *Service) cachedBlocks(ctx context.Context, appID, a, b string) (aBlockedB, bBlockedA bool, err error) {
	v, err := readThrough(s.entities, s.entities.blocks, key3(appID, a, b), func() ([2]bool, error) {
		ab, ba, err := s.store.Blocks(ctx, appID, a, b)
		return [2]bool{ab, ba}, err
	})
	return v[0], v[1], err
}

// cachedGroup is store.Group for no viewer through the cache: the caller must not change
// what its slices and pointers share.
func (s *Service) cachedGroup(ctx context.Context, appID, guid string) (Group, error) {
	return readThrough(s.entities, s.entities.groups, key2(appID, guid), func() (Group, error) { return s.store.Group(ctx, appID, guid, "") })
}

// cachedMembership is store.Membership through the cache.
func (s *Service) cachedMembership(ctx context.Context, appID, guid, uid string) (Membership, error) {
	return readThrough(s.entities, s.entities.members, key3(appID, guid, uid), func() (Membership, error) {
		return s.store.Membership(ctx, appID, guid, uid)
	})
}

// cachedRole is store.Role through the cache.
func (s *Service) cachedRole(ctx context.Context, appID, role string) (Role, error) {
	return readThrough(s.entities, s.entities.roles, key2(appID, role), func() (Role, error) { return s.store.Role(ctx, appID, role) })
}

// cachedUsersByID is store.UsersByID (active users by uid) through the cache: the users it
// holds are answered from it, one read fetches the rest.
func (s *Service) cachedUsersByID(ctx context.Context, appID string, uids []string) (map[string]User, error) {
	c := s.entities
	if !c.live.Load() {
		return s.store.UsersByID(ctx, appID, uids)
	}
	out := make(map[string]User, len(uids))
	var missing []string
	for _, uid := range uids {
		if u, ok := c.users.get(key2(appID, uid)); ok {
			if u.Active() {
				out[uid] = u
			}
			continue
		}
		missing = append(missing, uid)
	}
	if len(missing) == 0 {
		return out, nil
	}
	gen := c.users.generation()
	read, err := s.store.UsersByID(ctx, appID, missing)
	if err != nil {
		return nil, err
	}
	for uid, u := range read {
		out[uid] = u
		c.users.put(key2(appID, uid), u, gen)
	}
	return out, nil
}
