package chat

import "context"

// Principal is who is calling: the app the request addresses, the key or auth token it
// used, and the user it acts as. The HTTP layer's middleware resolves it once per request and
// hands it to the handler, which passes it to the service; nothing below reads headers.
type Principal struct {
	App     App
	KeyHash string
	Scope   Scope
	// TokenHash is the hash of the auth token the request authenticated with (a client
	// app); empty for a request made with an API key. A token's principal has no Scope and
	// always acts as the token's user.
	TokenHash string
	// Actor is the uid of the user the request acts as (onBehalfOf, or the auth token's
	// user), lower-cased; empty when the request names none.
	Actor string
	// badActor is an onBehalfOf that cannot be a uid: not found wherever an actor is used.
	badActor string
}

// ByToken reports whether the request authenticated with a user's auth token.
func (p Principal) ByToken() bool { return p.TokenHash != "" }

// ActingAs returns p acting as onBehalfOf (empty: as no one). The uid is only normalised
// here; the operation that needs the user finds it, in the transaction that uses it. A
// request made with an auth token acts as the token's user whatever onBehalfOf says.
func (p Principal) ActingAs(onBehalfOf string) Principal {
	if p.ByToken() {
		return p
	}
	p.Actor, p.badActor = "", ""
	if onBehalfOf == "" {
		return p
	}
	if uid, ok := NormalizeID(onBehalfOf); ok {
		p.Actor = uid
	} else {
		p.badActor = uid
	}
	return p
}

// acting reports whether the request names an acting user.
func (p Principal) acting() bool { return p.Actor != "" || p.badActor != "" }

// actor is the acting uid of a request that requires one.
func (p Principal) actor() (string, error) {
	switch {
	case p.badActor != "":
		return "", errUIDNotFound(p.badActor)
	case p.Actor == "":
		return "", InvalidField("onBehalfOf", "The onBehalfOf header is required.")
	}
	return p.Actor, nil
}

// errNoAccess refuses an operation the request's credential may not perform.
func errNoAccess(msg string) error { return Errorf(CodeNoAccess, "%s", msg) }

// PrivateMetadataKey is the key of a user's metadata that holds what only the user and the
// app read: the hosted service keeps a user's contact details (email, phone) there for its
// notification channels (docs/security.md, "metadata.@private").
const PrivateMetadataKey = "@private"

// SeesPrivate reports whether the caller may read metadata.@private of the user uid: the
// user itself (its auth token, or a key acting as it), or a fullAccess key acting as no one
// (the app's server). A request acting as another user — a client's token, or a key with
// onBehalfOf, which answers what that user's client would see — and an authOnly key do not.
func (p Principal) SeesPrivate(uid string) bool {
	if p.acting() {
		return p.Actor != "" && p.Actor == uid
	}
	return !p.ByToken() && p.Scope == ScopeFullAccess
}

// actingUser finds the acting user of a request that requires one.
func (s *Service) actingUser(ctx context.Context, p Principal) (User, error) {
	uid, err := p.actor()
	if err != nil {
		return User{}, err
	}
	return s.User(ctx, p, uid)
}
