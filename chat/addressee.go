package chat

import "context"

// addressee is whom a user may address: a group it is a member of and not banned from, or
// a user neither of the two has blocked. Exactly one of Group and User is set.
type addressee struct {
	Group *Group // with Viewer, the sender's membership
	User  *User
}

// addressee decides whether sender may address receiver (a guid or a uid, by receiverType)
// — a message, a call, a held message's approval all ask it here, so that a rule added
// to one (a ban, a block) holds for all.
func (s *Service) addressee(ctx context.Context, p Principal, sender, receiverType, receiver string) (addressee, error) {
	if receiverType == ReceiverGroup {
		g, err := s.memberGroup(ctx, p.App.ID, receiver, sender)
		if err != nil {
			return addressee{}, err
		}
		return addressee{Group: &g}, nil
	}
	u, err := s.User(ctx, p, receiver)
	if err != nil {
		return addressee{}, err
	}
	if err := s.blockedBetween(ctx, p.App.ID, sender, u.UID); err != nil {
		return addressee{}, err
	}
	return addressee{User: &u}, nil
}
