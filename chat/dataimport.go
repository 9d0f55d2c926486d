package chat

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// Data import (docs/import.md): users, groups, members and message history brought over from
// another system, keeping their ids, uids, guids and sentAt. Each request is one batch of at
// most MaxImportItems items, written in one transaction with multi-row statements, and
// answered item by item. Importing is idempotent: every item's key (uid, guid,
// "<guid>_member_<uid>", muid) is recorded with a digest of what was stored, so the same
// item again is skipped and the same key with other content is refused, never overwritten.
// Imported history is the past: it fires no webhooks, notifications or socket events.

// MaxImportItems is the most items one import request may carry (natter's bound; the hosted
// service documents none).
const MaxImportItems = 1000

// MaxImportTime is the latest 10-digit UNIX time an import accepts (the year 2286); a
// millisecond timestamp is refused rather than stored as a date far in the future.
const MaxImportTime = 9_999_999_999

// The import kinds, as import_keys records them.
const (
	ImportUser    = "user"
	ImportGroup   = "group"
	ImportMember  = "member"
	ImportMessage = "message"
)

// ImportResult is one item's outcome: imported, skipped (imported before with the same
// content), or refused with Err.
type ImportResult[T any] struct {
	Key     string // as sent
	Value   T
	Skipped bool
	Err     error
}

// ImportRecord is what an import key became: the digest of the item as stored, and for a
// message its natter id.
type ImportRecord struct {
	Key    string
	Digest string
	Ref    int64
}

// UserImport is one user of an import.
type UserImport struct {
	// Malformed is set when the item could not be read; it is refused with this error.
	Malformed     error
	Key           string // the key wrapping the item
	UID           string
	Name          string
	Avatar        string
	Link          string
	Role          string
	Metadata      json.RawMessage
	Tags          []string
	CreatedAt     int64
	LastActiveAt  int64
	DeactivatedAt int64
}

// GroupImport is one group of an import.
type GroupImport struct {
	// Malformed is set when the item could not be read; it is refused with this error.
	Malformed   error
	Key         string
	GUID        string
	Name        string
	Type        string
	Password    string
	Icon        string
	Description string
	Metadata    json.RawMessage
	Owner       string
	Tags        []string
	CreatedAt   int64
}

// MemberImport is one membership of an import: a member, or with IsBanned a ban.
type MemberImport struct {
	// Malformed is set when the item could not be read; it is refused with this error.
	Malformed error
	// Details are the users the item embeds (userDetails), created when missing.
	Details  []DetailUser
	Key      string // "<guid>_member_<uid>"
	GUID     string
	UID      string
	Scope    string
	IsBanned bool
	JoinedAt int64
}

// ImportedMember is a member as imported.
type ImportedMember struct {
	AppID    string
	GUID     string
	UID      string
	Scope    string // empty for a ban
	IsBanned bool
	JoinedAt int64
}

// MessageImport is one message of an import.
type MessageImport struct {
	// Malformed is set when the item could not be read; it is refused with this error.
	Malformed    error
	Key          string // the muid
	MUID         string
	Sender       string
	ReceiverType string
	Receiver     string
	Category     string
	Type         string
	Data         json.RawMessage
	Tags         []string
	SentAt       int64
	DeliveredAt  int64
	ReadAt       int64
	// QuotedMUID is the item's quotedMessageId: the muid of the message it quotes. Left out
	// of the digest when empty (omitempty), so that items imported before it keep theirs.
	QuotedMUID string `json:",omitempty"`
	// Details are the users the item embeds (senderUserDetails, receiverUserDetails),
	// created when they do not exist yet (detailUsers).
	Details []DetailUser
}

// DetailUser is a user an item embeds, under the field it came in.
type DetailUser struct {
	Field string // senderUserDetails, …
	User  UserImport
}

// ConversationTail is where an existing conversation's history ends: its last seq, and its
// last message's sentAt.
type ConversationTail struct {
	LastSeq    int64
	LastSentAt int64
}

// ImportTx is the storage of imports, inside the request's one transaction.
type ImportTx interface {
	// LockImports serialises imports into an app (PostgreSQL; SQLite has one writer).
	LockImports(appID string) error
	// ImportRecords returns the records of those keys of kind that were imported before.
	ImportRecords(appID, kind string, keys []string) (map[string]ImportRecord, error)
	// SaveImportRecords records imported keys.
	SaveImportRecords(appID, kind string, recs []ImportRecord) error
	// ExistingUsers and ExistingGroups return which of the ids exist (users whether
	// deactivated, deleted or not). Roles: RoleTx.ExistingRoles.
	ExistingUsers(appID string, uids []string) (map[string]bool, error)
	ExistingGroups(appID string, guids []string) (map[string]bool, error)
	// ExistingMemberships returns which "<guid>_member_<uid>" keys are members or bans.
	ExistingMemberships(appID string, ms []MemberImport) (map[string]bool, error)
	InsertImportedUsers(users []User) error
	InsertImportedGroups(groups []Group) error
	// InsertImportedMembers inserts members and bans, and counts the members in their
	// groups' members_count.
	InsertImportedMembers(ms []ImportedMember) error
	// ConversationTails returns the existing conversations among ids, locked for the
	// transaction.
	ConversationTails(appID string, ids []string) (map[string]ConversationTail, error)
	// InsertImportedMessages inserts messages with the seqs given, in order, and sets their
	// ids (and the QuotedID of one whose Quoted is another of msgs, to that one's id), with whom each mentions (Mentions: the uids only); then moves each conversation's row (last message, last seq, updated at, created
	// with its first message) and the one-to-one receivers' read and delivery markers to
	// the messages they had read or received.
	InsertImportedMessages(msgs []*Message) error
}

// importDigest is the digest of an item as natter stores it.
func importDigest(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func errImportDuplicate(key string) error {
	return &Error{Code: CodeImportDuplicateKey, Message: "The key " + brief(key) + " appears more than once in this request.",
		DevMessage: "Each item's key must be unique within one import request; none of the items sharing this key was imported (keys compare as they are stored: uids and guids lower-cased)."}
}

func errImportConflict(key string) error {
	return &Error{Code: CodeImportConflict, Message: "The key " + brief(key) + " was imported before with other content.",
		DevMessage: "An import never overwrites: the item with this key was imported earlier with different fields. Import the same content to skip it, or change it through the regular API."}
}

func errImportKeyMismatch(field, key string) error {
	return InvalidField(field, "The "+field+" must be the same as the key "+brief(key)+" that wraps the item.")
}

func errImportTooMany(field string, n int) error {
	return InvalidField(field, "The "+field+" may not have more than "+strconv.Itoa(MaxImportItems)+" items; this request has "+strconv.Itoa(n)+".")
}

func errImportEmpty(field string) error {
	return InvalidField(field, "The "+field+" field is required and must hold at least one item.")
}

// importTime checks a 10-digit UNIX time field.
func importTime(fe fieldErrors, field string, v int64, required bool) {
	switch {
	case v == 0 && required:
		fe.add(field, "The "+field+" field is required.")
	case v < 0 || v > MaxImportTime:
		fe.add(field, "The "+field+" must be a 10-digit UNIX timestamp in seconds.")
	}
}

// batchKeys checks the batch's size, and refuses every item whose stored key another item
// of the batch has too: none of them is imported, since which one was meant is unknown.
// keyOf is the item's key as stored, "" when the item is already refused.
func batchKeys(field string, n int, keyOf func(i int) string, errs []error) error {
	if n == 0 {
		return errImportEmpty(field)
	}
	if n > MaxImportItems {
		return errImportTooMany(field, n)
	}
	count := make(map[string]int, n)
	for i := 0; i < n; i++ {
		if k := keyOf(i); k != "" {
			count[k]++
		}
	}
	for i := 0; i < n; i++ {
		if k := keyOf(i); k != "" && count[k] > 1 {
			errs[i] = errImportDuplicate(k)
		}
	}
	return nil
}

// ImportUsers imports users, keyed by uid.
func (s Import) ImportUsers(ctx context.Context, p Principal, items []UserImport) ([]ImportResult[User], error) {
	n := len(items)
	errs := make([]error, n)
	users := make([]User, n)
	digests := make([]string, n)
	now := s.now()
	for i, in := range items {
		users[i], errs[i] = validateUserImport(p.App.ID, in, now)
		if errs[i] == nil {
			d := in
			d.Key, d.UID = "", users[i].UID
			digests[i] = importDigest(d)
		}
	}
	if err := batchKeys("users", n, func(i int) string {
		if errs[i] != nil {
			return ""
		}
		return users[i].UID
	}, errs); err != nil {
		return nil, err
	}
	res := make([]ImportResult[User], n)
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		cs.Add(settingsChange(p.App.ID, SettingImport))
		for i := range res {
			res[i] = ImportResult[User]{Key: items[i].Key, Value: users[i], Err: errs[i]}
		}
		if err := tx.LockImports(p.App.ID); err != nil {
			return err
		}
		keys, roles := []string{}, []string{}
		for i := range res {
			if res[i].Err == nil {
				keys = append(keys, users[i].UID)
				roles = append(roles, users[i].Role)
			}
		}
		recs, err := tx.ImportRecords(p.App.ID, ImportUser, keys)
		if err != nil {
			return err
		}
		exist, err := tx.ExistingUsers(p.App.ID, keys)
		if err != nil {
			return err
		}
		roleList, err := tx.ExistingRoles(p.App.ID, uniq(roles))
		if err != nil {
			return err
		}
		haveRole := make(map[string]bool, len(roleList))
		for _, r := range roleList {
			haveRole[r] = true
		}
		var add []User
		var save []ImportRecord
		for i := range res {
			r := &res[i]
			if r.Err != nil {
				continue
			}
			uid := users[i].UID
			if rec, ok := recs[uid]; ok {
				r.Skipped, r.Err = rec.Digest == digests[i], conflictUnless(rec.Digest == digests[i], uid)
				continue
			}
			switch {
			case exist[uid]:
				r.Err = Errorf(CodeUIDAlreadyExists, "The UID %s already exists, please use another UID.", uid)
			case !haveRole[users[i].Role]:
				r.Err = userRoleErr(users[i].Role, ErrRoleNotFound)
			default:
				add = append(add, users[i])
				save = append(save, ImportRecord{Key: uid, Digest: digests[i]})
			}
		}
		if len(add) == 0 {
			return nil
		}
		if err := tx.InsertImportedUsers(add); err != nil {
			return err
		}
		return tx.SaveImportRecords(p.App.ID, ImportUser, save)
	})
	if err != nil {
		return nil, internal("import users", err)
	}
	return res, nil
}

// uniq is ids without repeats, in first-seen order.
func uniq(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func conflictUnless(same bool, key string) error {
	if same {
		return nil
	}
	return errImportConflict(key)
}

func validateUserImport(appID string, in UserImport, now int64) (User, error) {
	if in.Malformed != nil {
		return User{}, in.Malformed
	}
	fe := fieldErrors{}
	if in.UID == "" {
		in.UID = in.Key
	}
	u := User{AppID: appID, Status: "offline", Role: DefaultRole}
	u.UID = fe.id("uid", in.UID, true)
	if k, _ := NormalizeID(in.Key); u.UID != "" && k != u.UID {
		return u, errImportKeyMismatch("uid", in.Key)
	}
	fe.text("name", in.Name, MaxNameLen, true)
	fe.text("avatar", in.Avatar, MaxURLLen, false)
	fe.text("link", in.Link, MaxURLLen, false)
	u.Name, u.Avatar, u.Link = in.Name, in.Avatar, in.Link
	if in.Role != "" {
		u.Role = fe.id("role", in.Role, false)
	}
	if in.Metadata != nil && string(in.Metadata) != "null" {
		u.Metadata = fe.metadata("metadata", in.Metadata)
	}
	u.Tags = fe.tags("tags", in.Tags)
	importTime(fe, "createdAt", in.CreatedAt, false)
	importTime(fe, "lastActiveAt", in.LastActiveAt, false)
	importTime(fe, "deactivatedAt", in.DeactivatedAt, false)
	if err := fe.err(); err != nil {
		return u, err
	}
	u.CreatedAt = in.CreatedAt
	if u.CreatedAt == 0 {
		u.CreatedAt = now
	}
	u.LastActiveAt, u.DeactivatedAt = in.LastActiveAt, in.DeactivatedAt
	return u, nil
}

// ImportGroups imports groups, keyed by guid. An owner must be a user already; the owner
// does not become a member (members are imported as members).
func (s Import) ImportGroups(ctx context.Context, p Principal, items []GroupImport) ([]ImportResult[Group], error) {
	n := len(items)
	errs := make([]error, n)
	groups := make([]Group, n)
	digests := make([]string, n)
	now := s.now()
	for i, in := range items {
		groups[i], errs[i] = validateGroupImport(p.App.ID, in, now)
		if errs[i] == nil {
			d := in
			d.Key, d.GUID, d.Owner = "", groups[i].GUID, groups[i].Owner
			if d.Password != "" { // the digest holds no password
				sum := sha256.Sum256([]byte(d.Password))
				d.Password = hex.EncodeToString(sum[:])
			}
			digests[i] = importDigest(d)
		}
	}
	if err := batchKeys("groups", n, func(i int) string {
		if errs[i] != nil {
			return ""
		}
		return groups[i].GUID
	}, errs); err != nil {
		return nil, err
	}
	// Hash passwords once, outside the transaction, which may run more than once.
	for i := range groups {
		if errs[i] == nil && items[i].Password != "" {
			groups[i].PasswordHash = hashGroupPassword(items[i].Password)
		}
	}
	res := make([]ImportResult[Group], n)
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		cs.Add(settingsChange(p.App.ID, SettingImport))
		for i := range res {
			res[i] = ImportResult[Group]{Key: items[i].Key, Value: groups[i], Err: errs[i]}
		}
		if err := tx.LockImports(p.App.ID); err != nil {
			return err
		}
		var keys, owners []string
		for i := range res {
			if res[i].Err == nil {
				keys = append(keys, groups[i].GUID)
				if groups[i].Owner != "" {
					owners = append(owners, groups[i].Owner)
				}
			}
		}
		recs, err := tx.ImportRecords(p.App.ID, ImportGroup, keys)
		if err != nil {
			return err
		}
		exist, err := tx.ExistingGroups(p.App.ID, keys)
		if err != nil {
			return err
		}
		users, err := tx.ExistingUsers(p.App.ID, owners)
		if err != nil {
			return err
		}
		var add []Group
		var save []ImportRecord
		for i := range res {
			r := &res[i]
			if r.Err != nil {
				continue
			}
			guid := groups[i].GUID
			if rec, ok := recs[guid]; ok {
				r.Skipped, r.Err = rec.Digest == digests[i], conflictUnless(rec.Digest == digests[i], guid)
				continue
			}
			switch {
			case exist[guid]:
				r.Err = Errorf(CodeGUIDAlreadyExists, "The GUID %s already exists, please use another GUID.", guid)
			case groups[i].Owner != "" && !users[groups[i].Owner]:
				r.Err = errUIDNotFound(groups[i].Owner)
			default:
				add = append(add, groups[i])
				save = append(save, ImportRecord{Key: guid, Digest: digests[i]})
			}
		}
		if len(add) == 0 {
			return nil
		}
		if err := tx.InsertImportedGroups(add); err != nil {
			return err
		}
		return tx.SaveImportRecords(p.App.ID, ImportGroup, save)
	})
	if err != nil {
		return nil, internal("import groups", err)
	}
	return res, nil
}

func validateGroupImport(appID string, in GroupImport, now int64) (Group, error) {
	if in.Malformed != nil {
		return Group{}, in.Malformed
	}
	fe := fieldErrors{}
	if in.GUID == "" {
		in.GUID = in.Key
	}
	g := Group{AppID: appID}
	g.GUID = fe.id("guid", in.GUID, true)
	if k, _ := NormalizeID(in.Key); g.GUID != "" && k != g.GUID {
		return g, errImportKeyMismatch("guid", in.Key)
	}
	fe.text("name", in.Name, MaxGroupNameLen, true)
	fe.text("icon", in.Icon, MaxURLLen, false)
	fe.text("description", in.Description, MaxGroupDescriptionLen, false)
	g.Name, g.Icon, g.Description, g.Type = in.Name, in.Icon, in.Description, in.Type
	if err := validGroupType(fe, in.Type, in.Password, in.Password != ""); err != nil {
		return g, err
	}
	g.Owner = fe.id("owner", in.Owner, false)
	if in.Metadata != nil && string(in.Metadata) != "null" {
		g.Metadata = fe.metadata("metadata", in.Metadata)
	}
	g.Tags = fe.tags("tags", in.Tags)
	importTime(fe, "createdAt", in.CreatedAt, false)
	if err := fe.err(); err != nil {
		return g, err
	}
	g.CreatedAt = in.CreatedAt
	if g.CreatedAt == 0 {
		g.CreatedAt = now
	}
	return g, nil
}

// detailUsers validates the users items embed (the hosted bodies' senderUserDetails,
// receiverUserDetails, userDetails): an invalid one refuses its item, naming the field. It
// returns the valid ones, each uid once (the first wins), with their digests.
func detailUsers(appID string, details [][]DetailUser, errs []error, now int64) ([]User, []string) {
	var users []User
	var digests []string
	seen := map[string]bool{}
	for i, ds := range details {
		if errs[i] != nil {
			continue
		}
		for _, d := range ds {
			if d.User.Key == "" {
				d.User.Key = d.User.UID
			}
			u, err := validateUserImport(appID, d.User, now)
			if err != nil {
				errs[i] = prefixed(d.Field, err)
				break
			}
			if !seen[u.UID] {
				seen[u.UID] = true
				dd := d.User
				dd.Key, dd.UID = "", u.UID
				users = append(users, u)
				digests = append(digests, importDigest(dd))
			}
		}
	}
	return users, digests
}

// prefixed names a validation error's fields inside field ("senderUserDetails.name").
func prefixed(field string, err error) error {
	e, ok := err.(*Error)
	if !ok || len(e.Details) == 0 {
		return err
	}
	d := make(map[string][]string, len(e.Details))
	for k, v := range e.Details {
		d[field+"."+k] = v
	}
	return Invalid(d)
}

// createDetailUsers creates, inside an import's transaction, the embedded users that do not
// exist and were never imported, recording them as imported: a later import of the same
// user with the same fields is skipped, with more or other fields refused as a conflict
// (import users first for their whole profiles). One whose role the app lacks is not
// created, and its item then finds no such user.
func createDetailUsers(tx Tx, appID string, users []User, digests []string) error {
	if len(users) == 0 {
		return nil
	}
	uids := make([]string, len(users))
	roles := make([]string, len(users))
	for i, u := range users {
		uids[i], roles[i] = u.UID, u.Role
	}
	exist, err := tx.ExistingUsers(appID, uids)
	if err != nil {
		return err
	}
	recs, err := tx.ImportRecords(appID, ImportUser, uids)
	if err != nil {
		return err
	}
	roleList, err := tx.ExistingRoles(appID, uniq(roles))
	if err != nil {
		return err
	}
	haveRole := map[string]bool{}
	for _, r := range roleList {
		haveRole[r] = true
	}
	var add []User
	var save []ImportRecord
	for i, u := range users {
		if _, imported := recs[u.UID]; !exist[u.UID] && !imported && haveRole[u.Role] {
			add = append(add, u)
			save = append(save, ImportRecord{Key: u.UID, Digest: digests[i]})
		}
	}
	if len(add) == 0 {
		return nil
	}
	if err := tx.InsertImportedUsers(add); err != nil {
		return err
	}
	return tx.SaveImportRecords(appID, ImportUser, save)
}
