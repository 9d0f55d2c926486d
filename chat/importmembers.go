package chat

import (
	"context"
	"strings"
)

// MemberKey is a membership's import key.
func MemberKey(guid, uid string) string { return guid + "_member_" + uid }

// ImportMembers imports group members (and, with isBanned, bans), keyed by
// "<guid>_member_<uid>". The group and the user must exist already.
func (s Import) ImportMembers(ctx context.Context, p Principal, items []MemberImport) ([]ImportResult[ImportedMember], error) {
	n := len(items)
	errs := make([]error, n)
	ms := make([]ImportedMember, n)
	keys := make([]string, n)
	digests := make([]string, n)
	now := s.now()
	for i, in := range items {
		ms[i], errs[i] = validateMemberImport(p.App.ID, in, now)
		if errs[i] == nil {
			keys[i] = MemberKey(ms[i].GUID, ms[i].UID)
			digests[i] = importDigest(MemberImport{GUID: ms[i].GUID, UID: ms[i].UID, Scope: ms[i].Scope, IsBanned: in.IsBanned, JoinedAt: in.JoinedAt})
		}
	}
	if err := batchKeys("members", n, func(i int) string { return keys[i] }, errs); err != nil {
		return nil, err
	}
	details := make([][]DetailUser, n)
	for i := range items {
		details[i] = items[i].Details
	}
	detailed, detailDigests := detailUsers(p.App.ID, details, errs, now)

	res := make([]ImportResult[ImportedMember], n)
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		cs.Add(settingsChange(p.App.ID, SettingImport))
		for i := range res {
			res[i] = ImportResult[ImportedMember]{Key: items[i].Key, Value: ms[i], Err: errs[i]}
		}
		if err := tx.LockImports(p.App.ID); err != nil {
			return err
		}
		if err := createDetailUsers(tx, p.App.ID, detailed, detailDigests); err != nil {
			return err
		}
		var ks, guids, uids []string
		var pairs []MemberImport
		for i := range res {
			if res[i].Err == nil {
				ks = append(ks, keys[i])
				guids = append(guids, ms[i].GUID)
				uids = append(uids, ms[i].UID)
				pairs = append(pairs, MemberImport{Key: keys[i], GUID: ms[i].GUID, UID: ms[i].UID})
			}
		}
		recs, err := tx.ImportRecords(p.App.ID, ImportMember, ks)
		if err != nil {
			return err
		}
		groups, err := tx.ExistingGroups(p.App.ID, guids)
		if err != nil {
			return err
		}
		users, err := tx.ExistingUsers(p.App.ID, uids)
		if err != nil {
			return err
		}
		exist, err := tx.ExistingMemberships(p.App.ID, pairs)
		if err != nil {
			return err
		}
		var add []ImportedMember
		var save []ImportRecord
		for i := range res {
			r := &res[i]
			if r.Err != nil {
				continue
			}
			m := ms[i]
			if rec, ok := recs[keys[i]]; ok {
				r.Skipped, r.Err = rec.Digest == digests[i], conflictUnless(rec.Digest == digests[i], keys[i])
				continue
			}
			switch {
			case !groups[m.GUID]:
				r.Err = errGUIDNotFound(m.GUID)
			case !users[m.UID]:
				r.Err = errUIDNotFound(m.UID)
			case exist[keys[i]]:
				r.Err = Errorf(CodeAlreadyJoined, "The user %s is already a member of, or banned from, the group %s.", m.UID, m.GUID)
			default:
				add = append(add, m)
				save = append(save, ImportRecord{Key: keys[i], Digest: digests[i]})
			}
		}
		if len(add) == 0 {
			return nil
		}
		if err := tx.InsertImportedMembers(add); err != nil {
			return err
		}
		return tx.SaveImportRecords(p.App.ID, ImportMember, save)
	})
	if err != nil {
		return nil, internal("import members", err)
	}
	return res, nil
}

func validateMemberImport(appID string, in MemberImport, now int64) (ImportedMember, error) {
	if in.Malformed != nil {
		return ImportedMember{}, in.Malformed
	}
	fe := fieldErrors{}
	guid, uid := in.GUID, in.UID
	if guid == "" && uid == "" { // the key alone names both
		if g, u, ok := strings.Cut(in.Key, "_member_"); ok {
			guid, uid = g, u
		}
	}
	m := ImportedMember{AppID: appID, Scope: in.Scope, IsBanned: in.IsBanned}
	m.GUID = fe.id("guid", guid, true)
	m.UID = fe.id("uid", uid, true)
	if m.Scope == "" {
		m.Scope = ScopeParticipant
	}
	if !validScope(m.Scope) {
		fe.add("scope", "The scope must be one of admin, moderator, participant.")
	}
	importTime(fe, "joinedAt", in.JoinedAt, false)
	if err := fe.err(); err != nil {
		return m, err
	}
	if k := strings.ToLower(in.Key); k != MemberKey(m.GUID, m.UID) {
		return m, errImportKeyMismatch("memberId", in.Key)
	}
	m.JoinedAt = in.JoinedAt
	if m.JoinedAt == 0 {
		m.JoinedAt = now
	}
	if m.IsBanned {
		m.Scope = ""
	}
	return m, nil
}
