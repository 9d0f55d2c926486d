package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Interactive messages (issue 38): category interactive, whose data.interactiveData
// declares elements (each an object with an elementId: a form's fields and submit button, a
// card's buttons, a scheduler's slots, a custom one's own), data.interactionGoal says which
// of them complete it, and data.allowSenderInteraction whether the sender may interact too.
// PATCH /messages/{id}/interacted records, per user, the elements that user interacted with;
// a message read on a user's behalf carries that user's in data.interactions, and the
// interaction that completes the goal for a user announces interactionGoalCompleted.

// CategoryInteractive is the interactive messages' category.
const CategoryInteractive = "interactive"

// interactiveTypes are the hosted file's interactive types (interactiveCategorySchema); its
// enum is closed, and the SDK's InteractiveMessage builders send only these.
var interactiveTypes = map[string]bool{"form": true, "card": true, "scheduler": true, "customInteractive": true}

// Interaction goal types: the hosted file's enum (anyOf, allOf, oneOf, none) and the SDK's
// GoalType (anyAction, anyOf, allOf, none).
const (
	GoalAnyAction = "anyAction"
	GoalAnyOf     = "anyOf"
	GoalOneOf     = "oneOf"
	GoalAllOf     = "allOf"
	GoalNone      = "none"
)

var goalTypes = []string{GoalAnyAction, GoalAnyOf, GoalOneOf, GoalAllOf, GoalNone}

// Bounds of an interaction request.
const (
	maxElementIDLen       = 255
	maxInteractionsPerReq = 100
)

// Interaction is one element a user interacted with, and when (first).
type Interaction struct {
	ElementID    string
	InteractedAt int64
}

// InteractionGoal is data.interactionGoal: which interactions complete the message.
type InteractionGoal struct {
	Type       string   `json:"type"`
	ElementIDs []string `json:"elementIds"`
}

// Interactive is what natter reads of an interactive message's data.
type Interactive struct {
	Elements               []string // the elementIds interactiveData declares, in order
	Goal                   InteractionGoal
	AllowSenderInteraction bool
}

// parseInteractive reads an interactive message's data, as validated at send.
func parseInteractive(data json.RawMessage) Interactive {
	var d struct {
		InteractiveData        json.RawMessage  `json:"interactiveData"`
		InteractionGoal        *InteractionGoal `json:"interactionGoal"`
		AllowSenderInteraction bool             `json:"allowSenderInteraction"`
	}
	json.Unmarshal(data, &d)
	in := Interactive{AllowSenderInteraction: d.AllowSenderInteraction, Goal: InteractionGoal{Type: GoalNone}}
	if d.InteractionGoal != nil {
		in.Goal = *d.InteractionGoal
	}
	var v any
	if json.Unmarshal(d.InteractiveData, &v) == nil {
		in.Elements = declaredElements(v, nil)
	}
	return in
}

// declaredElements collects the elementId of every object in v, depth first, each once:
// the hosted types nest their elements differently (formFields and submitElement, a card's
// buttons, a scheduler's own), and a customInteractive message's are the sender's, so any
// object that names an elementId declares one.
func declaredElements(v any, out []string) []string {
	switch x := v.(type) {
	case map[string]any:
		if id, ok := x["elementId"].(string); ok && id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys) // a map's order is random; the result's must not be
		for _, k := range keys {
			out = declaredElements(x[k], out)
		}
	case []any:
		for _, e := range x {
			out = declaredElements(e, out)
		}
	}
	return out
}

// hiddenInteractiveKeys are the interactiveData keys whose strings a reader is not shown:
// ids, element kinds, addresses, the request an action makes, and an option's value (its
// label is what is shown). Every other string is the message's visible text
// (InteractiveText): a denylist, so that a customInteractive type's own fields, which natter
// cannot know, are read as visible rather than missed.
var hiddenInteractiveKeys = map[string]bool{
	"elementId": true, "elementIds": true, "elementType": true, "actionType": true, "type": true,
	"url": true, "imageUrl": true, "avatarUrl": true, "icon": true, "iconUrl": true,
	"method": true, "headers": true, "payload": true, "dataKey": true, "timezoneCode": true, "value": true,
}

// InteractiveText is the text a reader of an interactive message sees in its
// data.interactiveData (titles, labels, placeholders, button texts, options, the
// goal-completion text), one string per line in a fixed order (keys sorted), for moderation
// rules and searchKey. It is bounded by the data's own bound (MaxMessageDataBytes): the
// walk is linear in the data, and its result never longer.
func InteractiveText(data json.RawMessage) string {
	var d struct {
		InteractiveData any `json:"interactiveData"`
	}
	if json.Unmarshal(data, &d) != nil {
		return ""
	}
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if x = strings.TrimSpace(x); x != "" && b.Len()+len(x) < MaxMessageDataBytes {
				b.WriteString(x)
				b.WriteByte('\n')
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				if !hiddenInteractiveKeys[k] {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(d.InteractiveData)
	return strings.TrimSuffix(b.String(), "\n")
}

// validateInteractive checks an interactive message's content: its type, an object
// interactiveData, a goal of a known type over declared elements, a boolean
// allowSenderInteraction.
func validateInteractive(typ string, fields map[string]json.RawMessage) error {
	if !interactiveTypes[typ] {
		return Errorf(CodeInvalidType, "The type %s is not valid for category interactive: form, card, scheduler or customInteractive.", brief(typ))
	}
	raw, ok := fields["interactiveData"]
	if !ok || string(raw) == "null" {
		return InvalidField("data.interactiveData", "The data.interactiveData field is required for interactive messages.")
	}
	if !isJSONKind(raw, '{') {
		return InvalidField("data.interactiveData", "The data.interactiveData must be a JSON object.")
	}
	if raw, ok := fields["allowSenderInteraction"]; ok && string(raw) != "true" && string(raw) != "false" {
		return InvalidField("data.allowSenderInteraction", "The data.allowSenderInteraction must be a boolean.")
	}
	raw, ok = fields["interactionGoal"]
	if !ok || string(raw) == "null" {
		return nil
	}
	var goal InteractionGoal
	if !isJSONKind(raw, '{') || json.Unmarshal(raw, &goal) != nil {
		return InvalidField("data.interactionGoal", "The data.interactionGoal must be an object with a type and elementIds, a list of strings.")
	}
	if !slices.Contains(goalTypes, goal.Type) {
		return InvalidField("data.interactionGoal.type", "The goal type must be one of "+strings.Join(goalTypes, ", ")+".")
	}
	var v any
	json.Unmarshal(fields["interactiveData"], &v)
	declared := declaredElements(v, nil)
	for _, id := range goal.ElementIDs {
		if !slices.Contains(declared, id) {
			return InvalidField("data.interactionGoal.elementIds", fmt.Sprintf("The element %s is not one data.interactiveData declares.", brief(id)))
		}
	}
	if (goal.Type == GoalAnyOf || goal.Type == GoalOneOf || goal.Type == GoalAllOf) && len(goal.ElementIDs) == 0 {
		return InvalidField("data.interactionGoal.elementIds", "A goal of type "+goal.Type+" names the elements it is about.")
	}
	return nil
}

// GoalCompleted decides whether the interactions done complete goal. anyAction is done by
// any interaction; anyOf and oneOf by an interaction with one of its elements; allOf by
// interactions with all of them; none is never done.
func GoalCompleted(goal InteractionGoal, done []Interaction) bool {
	has := func(id string) bool {
		return slices.ContainsFunc(done, func(i Interaction) bool { return i.ElementID == id })
	}
	switch goal.Type {
	case GoalAnyAction:
		return len(done) > 0
	case GoalAnyOf, GoalOneOf:
		return slices.ContainsFunc(goal.ElementIDs, has)
	case GoalAllOf:
		return len(goal.ElementIDs) > 0 && !slices.ContainsFunc(goal.ElementIDs, func(id string) bool { return !has(id) })
	}
	return false
}

// InteractionStore reads the interactions recorded.
type InteractionStore interface {
	// Interactions are uid's interactions with message id, in the order first made.
	Interactions(ctx context.Context, appID string, id int64, uid string) ([]Interaction, error)
}

// InteractionTx records interactions inside a transaction.
type InteractionTx interface {
	// InteractionsForChange reads uid's interactions with message id, as Interactions.
	InteractionsForChange(appID string, id int64, uid string) ([]Interaction, error)
	// AddInteractions records uid's interactions with elements of message id at at; an
	// element already recorded keeps its first time.
	AddInteractions(appID string, id int64, uid string, elements []string, at int64) error
	// CompleteGoal records that uid's interactions completed message id's goal at at.
	CompleteGoal(appID string, id int64, uid string, at int64) error
}

// Interacted is what MarkInteracted did.
type Interacted struct {
	MessageID int64
	UID       string
}

// MarkInteracted records that the acting user interacted with elements of the interactive
// message id (PATCH /messages/{id}/interacted). Every element must be one the message
// declares; the user must be able to see the message, and be other than its sender unless
// the message allows its sender's interaction. Nothing is recorded when any of this fails.
// When the interactions complete the message's goal for the user, an interactionGoalCompleted
// change is announced (the SDK's onInteractionGoalCompleted).
func (s *Service) MarkInteracted(ctx context.Context, p Principal, id string, elements []string) (Interacted, error) {
	if _, err := p.actor(); err != nil { // interactions are a user's: the hosted file requires onBehalfOf
		return Interacted{}, err
	}
	if err := validateElementIDs(elements); err != nil {
		return Interacted{}, err
	}
	m, viewer, err := s.message(ctx, p, id) // a user who may not see the message: 403, none: 404
	if err != nil {
		return Interacted{}, err
	}
	if m.DeletedAt != 0 {
		return Interacted{}, errDeleted(m.Head())
	}
	if m.Category != CategoryInteractive {
		return Interacted{}, Errorf(CodeBadRequest, "The message with id %d is not an interactive message.", m.ID)
	}
	in := parseInteractive(m.Data)
	if m.Sender == viewer.UID && !in.AllowSenderInteraction {
		return Interacted{}, Errorf(CodePermissionDenied, "The sender of the message with id %d may not interact with it: it does not allow sender interaction.", m.ID)
	}
	for _, e := range elements {
		if !slices.Contains(in.Elements, e) {
			return Interacted{}, InvalidField("interactions", fmt.Sprintf("The element %s is not one the message with id %d declares.", brief(e), m.ID))
		}
	}
	now := s.now()
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		before, err := tx.InteractionsForChange(p.App.ID, m.ID, viewer.UID)
		if err != nil {
			return err
		}
		if err := tx.AddInteractions(p.App.ID, m.ID, viewer.UID, elements, now); err != nil {
			return err
		}
		after, err := tx.InteractionsForChange(p.App.ID, m.ID, viewer.UID)
		if err != nil {
			return err
		}
		c := &Change{Kind: ChangeInteraction, App: p.App.ID, Conversation: m.ConversationID, MessageID: m.ID,
			Actor: viewer.UID, UIDs: []string{m.Sender}, GUID: groupOf(m), At: now}
		if m.ReceiverType == ReceiverUser {
			c.UIDs = append(c.UIDs, m.Receiver)
		}
		if !GoalCompleted(in.Goal, before) && GoalCompleted(in.Goal, after) {
			c.Subject = InteractionGoalCompleted
			if err := tx.CompleteGoal(p.App.ID, m.ID, viewer.UID, now); err != nil {
				return err
			}
		}
		cs.Add(c)
		return nil
	})
	if err != nil {
		return Interacted{}, internal("mark interacted", err)
	}
	return Interacted{MessageID: m.ID, UID: viewer.UID}, nil
}

// InteractionGoalCompleted is the Subject of a ChangeInteraction whose interactions completed
// the message's goal for its Actor.
const InteractionGoalCompleted = "goalCompleted"

// groupOf is a group message's guid, "" for a one-to-one message.
func groupOf(m Message) string {
	if m.ReceiverType == ReceiverGroup {
		return m.Receiver
	}
	return ""
}

// validateElementIDs checks the body's interactions: one to maxInteractionsPerReq element
// ids, each a non-empty string of valid UTF-8 of bounded length.
func validateElementIDs(elements []string) error {
	if len(elements) == 0 {
		return InvalidField("interactions", "The interactions field is required: a list of the element ids interacted with.")
	}
	if len(elements) > maxInteractionsPerReq {
		return InvalidField("interactions", fmt.Sprintf("At most %d element ids at once.", maxInteractionsPerReq))
	}
	for _, e := range elements {
		if e == "" || utf8.RuneCountInString(e) > maxElementIDLen || !utf8.ValidString(e) || strings.IndexByte(e, 0) >= 0 {
			return InvalidField("interactions", "Each element id is a non-empty string of at most 255 characters.")
		}
	}
	return nil
}

// Interactions reads uid's interactions with a message, for a frame that reports them.
func (s *Service) Interactions(ctx context.Context, appID string, id int64, uid string) ([]Interaction, error) {
	return s.store.Interactions(ctx, appID, id, uid)
}
