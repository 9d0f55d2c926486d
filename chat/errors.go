package chat

import (
	"errors"
	"fmt"
)

// Code is a v3 API error code, as the hosted service spells it.
type Code string

// Kind is what sort of failure a code reports; httpapi answers each kind with one status.
type Kind int

const (
	KindInternal Kind = iota // a bug: 500
	KindInvalid
	KindUnauthenticated
	KindForbidden
	KindNotFound
	KindConflict
	KindTooLarge
	KindRateLimited
	KindUnavailable
	KindNotImplemented
	KindMethodNotAllowed
)

// Error codes natter emits; kinds gives each its Kind.
const (
	CodeBadRequest                Code = "ERR_BAD_REQUEST"
	CodeAPINotFound               Code = "ERR_API_NOT_FOUND"
	CodeMethodNotAllowed          Code = "ERR_METHOD_NOT_ALLOWED" // natter's own: the hosted service says ERR_API_NOT_FOUND
	CodeNotImplemented            Code = "ERR_NOT_IMPLEMENTED"
	CodeException                 Code = "ERR_EXCEPTION"
	CodeServiceUnavailable        Code = "ERR_SERVICE_UNAVAILABLE"
	CodeTooManyRequests           Code = "ERR_TOO_MANY_REQUESTS"
	CodeEmptyAPIKey               Code = "AUTH_ERR_EMPTY_APIKEY"
	CodeAPIKeyNotFound            Code = "AUTH_ERR_APIKEY_NOT_FOUND"
	CodeInvalidAppID              Code = "AUTH_ERR_INVALID_APPID"
	CodeNoAccess                  Code = "AUTH_ERR_NO_ACCESS"
	CodeAPIKeyPathNotFound        Code = "ERR_APIKEY_NOT_FOUND"
	CodeAPIKeyNoSelfAction        Code = "ERR_APIKEY_NO_SELF_ACTION"
	CodeUIDNotFound               Code = "ERR_UID_NOT_FOUND"
	CodeUIDAlreadyExists          Code = "ERR_UID_ALREADY_EXISTS"
	CodeMessageNotFound           Code = "ERR_MESSAGE_ID_NOT_FOUND"
	CodeMessageNoAccess           Code = "ERR_MESSAGE_NO_ACCESS"
	CodeMessageNotASender         Code = "ERR_MESSAGE_NOT_A_SENDER"
	CodeMessageActionDenied       Code = "ERR_MESSAGE_ACTION_NOT_ALLOWED"
	CodeReactionLimitExceeded     Code = "ERR_REACTION_LIMIT_EXCEEDED"
	CodeEmptyReceiver             Code = "ERR_EMPTY_RECEIVER"
	CodeInvalidReceiverType       Code = "ERR_INVALID_RECEIVER_TYPE"
	CodeInvalidCategory           Code = "ERR_INVALID_MESSAGE_CATEGORY"
	CodeInvalidType               Code = "ERR_INVALID_MESSAGE_TYPE"
	CodeInvalidMessageData        Code = "ERR_INVALID_MESSAGE_DATA"
	CodeEmptyText                 Code = "ERR_EMPTY_MESSAGE_TEXT"
	CodeInvalidText               Code = "ERR_INVALID_MESSAGE_TEXT"
	CodeEmptyFile                 Code = "ERR_EMPTY_MESSAGE_FILE"
	CodeEmptyCustomData           Code = "ERR_EMPTY_CUSTOM_DATA"
	CodeInvalidCustomData         Code = "ERR_INVALID_CUSTOM_DATA"
	CodeInvalidMetadata           Code = "ERR_INVALID_METADATA"
	CodeNotAMember                Code = "ERR_NOT_A_MEMBER"
	CodeGUIDNotFound              Code = "ERR_GUID_NOT_FOUND"
	CodeGUIDAlreadyExists         Code = "ERR_GUID_ALREADY_EXISTS"
	CodeEmptyGroupPass            Code = "ERR_EMPTY_GROUP_PASS"
	CodeWrongGroupPass            Code = "ERR_WRONG_GROUP_PASS"
	CodeAlreadyJoined             Code = "ERR_ALREADY_JOINED"
	CodeGroupJoinNotAllowed       Code = "ERR_GROUP_JOIN_NOT_ALLOWED"
	CodeNoVacancy                 Code = "ERR_NO_VACANCY"
	CodeSameScope                 Code = "ERR_SAME_SCOPE"
	CodeNotABannedUser            Code = "ERR_NOT_A_BANNED_USER"
	CodeBannedGroupMember         Code = "ERR_BANNED_GROUPMEMBER"
	CodeAlreadyBanned             Code = "ERR_ALREADY_BANNED"
	CodeGroupNoClearance          Code = "ERR_GROUP_NO_CLEARANCE"
	CodeGroupNoScopeClearance     Code = "ERR_GROUP_NO_SCOPE_CLEARANCE"
	CodeGroupNoSelfAction         Code = "ERR_GROUP_NO_SELF_ACTION"
	CodePlanQuotaRestriction      Code = "ERR_PLAN_QUOTA_RESTRICTION"
	CodeConversationNotAccessible Code = "ERR_CONVERSATION_NOT_ACCESSIBLE"
	CodeConversationNotFound      Code = "ERR_CONVERSATION_NOT_FOUND"
	CodeMessageThreadNesting      Code = "ERR_MESSAGE_THREAD_NESTING"
	CodeWrongMessageThread        Code = "ERR_WRONG_MESSAGE_THREAD"
	CodeWrongThreadCategory       Code = "ERR_WRONG_MESSAGE_THREAD_CATEGORY"
	CodeCannotBlockSelf           Code = "ERR_CANNOT_BLOCK_SELF"
	CodePinnedMessagesLimit       Code = "ERR_PINNED_MESSAGES_LIMIT_EXCEEDED"
	CodeSavedMessagesLimit        Code = "ERR_SAVED_MESSAGES_LIMIT_EXCEEDED"
	CodePinnedConversationsLimit  Code = "ERR_PINNED_CONVERSATIONS_LIMIT_EXCEEDED"
	CodeSystemPinnedLimit         Code = "ERR_SYSTEM_PINNED_CONVERSATIONS_LIMIT_EXCEEDED"
	CodeSystemPinnedConversation  Code = "ERR_SYSTEM_PINNED_CONVERSATION"
	CodeBlockedReceiver           Code = "ERR_BLOCKED_RECEIVER"
	CodeBlockedSender             Code = "ERR_BLOCKED_SENDER"
	CodeIdempotencyKeyReused      Code = "ERR_IDEMPOTENCY_KEY_REUSED" // natter's own: a key sent again with another request
	CodeIdempotencyKeyInUse       Code = "ERR_IDEMPOTENCY_KEY_IN_USE" // natter's own: the key's first request is unanswered
	CodeEmptyAuthToken            Code = "AUTH_ERR_EMPTY_AUTH_TOKEN"
	CodeAuthTokenUnknown          Code = "AUTH_ERR_AUTH_TOKEN_NOT_FOUND" // the authToken header
	CodeAuthTokenNotFound         Code = "ERR_AUTH_TOKEN_NOT_FOUND"      // a token named in the path
	CodeSelfRelation              Code = "ERR_CANNOT_FORM_SELF_RELATION"
	CodeAlreadyFriend             Code = "ERR_ALREADY_FRIEND"
	CodeNotAFriend                Code = "ERR_NOT_A_FRIEND"
	CodeFriendAddFailed           Code = "ERR_FAILED_TO_ADD_FRIEND"
	CodeRoleNotFound              Code = "ERR_ROLE_NOT_FOUND"
	CodeRoleDeleteDenied          Code = "ERR_ROLE_DELETE_DENIED"
	CodePermissionDenied          Code = "ERR_PERMISSION_DENIED"
	CodeWebhookNotFound           Code = "ERR_WEBHOOK_NOT_FOUND"
	CodeWebhookAlreadyExists      Code = "ERR_WEBHOOK_ALREADY_EXISTS" // natter's own: a webhook id taken
	CodeAgentNotFound             Code = "ERR_AGENT_NOT_FOUND"
	CodeAgentCreationFailed       Code = "ERR_AGENT_CREATION_FAILED"
	CodeTriggerNotFound           Code = "ERR_TRIGGER_NOT_FOUND"
	CodeProviderNotFound          Code = "ERR_PROVIDER_NOT_FOUND"
	CodeProviderAlreadyExists     Code = "ERR_PROVIDER_ALREADY_EXISTS"
	CodeTokenNotFound             Code = "ERR_TOKEN_NOT_FOUND"      // a push token
	CodeTokenAlreadyExists        Code = "ERR_TOKEN_ALREADY_EXISTS" // not emitted: registering a push token again is idempotent (pushtokens.go)
	CodeImportDuplicateKey        Code = "ERR_IMPORT_DUPLICATE_KEY" // natter's own: a key twice in one import request
	CodeImportConflict            Code = "ERR_IMPORT_CONFLICT"      // natter's own: a key imported before with other content
	CodeImportOutOfOrder          Code = "ERR_IMPORT_OUT_OF_ORDER"  // natter's own: a message older than its conversation's last

	// Calls (calls.go), the hosted calling codes.
	CodeCallSessionNotFound    Code = "ERR_CALL_SESSION_NOT_FOUND"
	CodeCallingSelf            Code = "ERR_CALLING_SELF"
	CodeCallTerminated         Code = "ERR_CALL_TERMINATED"
	CodeCallNotAPart           Code = "ERR_CALL_NOT_A_PART"
	CodeCallNotStarted         Code = "ERR_CALL_NOT_STARTED"
	CodeCallUserAlreadyJoined  Code = "ERR_CALL_USER_ALREADY_JOINED"
	CodeCallGroupAlreadyJoined Code = "ERR_CALL_GROUP_ALREADY_JOINED"
	CodeCallGroupAlreadyLeft   Code = "ERR_CALL_GROUP_ALREADY_LEFT"
	CodeCallOngoingToInvalid   Code = "ERR_CALL_ONGOING_TO_INVALID"
	CodeCallInvalidStatus      Code = "ERR_CALL_INVALID_STATUS" // natter's own: a status this party may not set now
)

// kinds is every code's kind. A code missing here would answer 500; a test walks every Code
// constant of this package to make sure none is.
var kinds = map[Code]Kind{
	CodeCallSessionNotFound:       KindNotFound,
	CodeCallingSelf:               KindInvalid,
	CodeCallTerminated:            KindConflict,
	CodeCallNotAPart:              KindForbidden,
	CodeCallNotStarted:            KindConflict,
	CodeCallUserAlreadyJoined:     KindConflict,
	CodeCallGroupAlreadyJoined:    KindConflict,
	CodeCallGroupAlreadyLeft:      KindConflict,
	CodeCallOngoingToInvalid:      KindConflict,
	CodeCallInvalidStatus:         KindConflict,
	CodeBadRequest:                KindInvalid,
	CodeUIDAlreadyExists:          KindInvalid, // the hosted service answers 400
	CodeReactionLimitExceeded:     KindInvalid,
	CodeEmptyReceiver:             KindInvalid,
	CodeInvalidReceiverType:       KindInvalid,
	CodeInvalidCategory:           KindInvalid,
	CodeInvalidType:               KindInvalid,
	CodeInvalidMessageData:        KindInvalid,
	CodeEmptyText:                 KindInvalid,
	CodeInvalidText:               KindInvalid,
	CodeEmptyFile:                 KindInvalid,
	CodeEmptyCustomData:           KindInvalid,
	CodeInvalidCustomData:         KindInvalid,
	CodeInvalidMetadata:           KindInvalid,
	CodeGUIDAlreadyExists:         KindInvalid, // as ERR_UID_ALREADY_EXISTS
	CodeEmptyGroupPass:            KindInvalid,
	CodeSameScope:                 KindInvalid,
	CodeNotAMember:                KindForbidden,
	CodeWrongGroupPass:            KindForbidden,
	CodeGroupJoinNotAllowed:       KindForbidden,
	CodeNoVacancy:                 KindForbidden,
	CodeBannedGroupMember:         KindForbidden,
	CodeGroupNoClearance:          KindForbidden,
	CodeGroupNoScopeClearance:     KindForbidden,
	CodeGroupNoSelfAction:         KindForbidden,
	CodePlanQuotaRestriction:      KindForbidden,
	CodeGUIDNotFound:              KindNotFound,
	CodeConversationNotFound:      KindNotFound,
	CodeConversationNotAccessible: KindForbidden,
	CodeMessageThreadNesting:      KindInvalid,
	CodeWrongMessageThread:        KindInvalid,
	CodeWrongThreadCategory:       KindInvalid,
	CodeCannotBlockSelf:           KindInvalid,
	CodePinnedMessagesLimit:       KindInvalid,
	CodeSavedMessagesLimit:        KindInvalid,
	CodePinnedConversationsLimit:  KindInvalid,
	CodeSystemPinnedLimit:         KindInvalid,
	CodeSystemPinnedConversation:  KindForbidden,
	CodeBlockedReceiver:           KindForbidden,
	CodeBlockedSender:             KindForbidden,
	CodeAlreadyJoined:             KindConflict,
	CodeAlreadyBanned:             KindConflict,
	CodeNotABannedUser:            KindConflict,
	CodeEmptyAPIKey:               KindUnauthenticated,
	CodeAPIKeyNotFound:            KindUnauthenticated,
	CodeInvalidAppID:              KindUnauthenticated,
	CodeNoAccess:                  KindForbidden,
	CodeAPIKeyNoSelfAction:        KindForbidden,
	CodeMessageNoAccess:           KindForbidden,
	CodeMessageNotASender:         KindForbidden,
	CodeAPINotFound:               KindNotFound,
	CodeAPIKeyPathNotFound:        KindNotFound,
	CodeUIDNotFound:               KindNotFound,
	CodeMessageNotFound:           KindNotFound,
	CodeMessageActionDenied:       KindConflict,
	CodeTooManyRequests:           KindRateLimited,
	CodeException:                 KindInternal,
	CodeNotImplemented:            KindNotImplemented,
	CodeMethodNotAllowed:          KindMethodNotAllowed,
	CodeServiceUnavailable:        KindUnavailable,
	CodeSelfRelation:              KindInvalid, // per-uid results of add friends
	CodeAlreadyFriend:             KindInvalid,
	CodeFriendAddFailed:           KindInvalid,
	CodeEmptyAuthToken:            KindUnauthenticated,
	CodeAuthTokenUnknown:          KindUnauthenticated,
	CodeAuthTokenNotFound:         KindNotFound,
	CodeNotAFriend:                KindNotFound,
	CodeIdempotencyKeyReused:      KindConflict,
	CodeIdempotencyKeyInUse:       KindConflict,
	CodeRoleNotFound:              KindNotFound,
	CodeRoleDeleteDenied:          KindForbidden,
	CodePermissionDenied:          KindForbidden,
	CodeWebhookNotFound:           KindNotFound,
	CodeWebhookAlreadyExists:      KindInvalid, // as ERR_UID_ALREADY_EXISTS
	CodeAgentNotFound:             KindNotFound,
	CodeAgentCreationFailed:       KindConflict, // an agent of that uid, a deactivated user, the app's limit
	CodeTriggerNotFound:           KindInvalid,
	CodeProviderNotFound:          KindNotFound,
	CodeProviderAlreadyExists:     KindInvalid, // as ERR_UID_ALREADY_EXISTS
	CodeTokenNotFound:             KindNotFound,
	CodeTokenAlreadyExists:        KindInvalid,
	CodeImportDuplicateKey:        KindInvalid,
	CodeImportConflict:            KindConflict,
	CodeImportOutOfOrder:          KindInvalid,
}

// Kind of the code; an unknown code is internal.
func (c Code) Kind() Kind { return kinds[c] }

// Error is the one error type that crosses from the service to a client. Message is safe to
// show an end user; Err is the internal cause, which is logged and never sent.
type Error struct {
	Code       Code
	Message    string
	DevMessage string
	Details    map[string][]string
	Err        error
	// Override, when set, is the kind of this error rather than its code's: a body over
	// the size limit is ERR_BAD_REQUEST, as on the hosted service, but too large.
	Override Kind
}

// Kind of the error.
func (e *Error) Kind() Kind {
	if e.Override != KindInternal {
		return e.Override
	}
	return e.Code.Kind()
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an Error whose message and dev message are the same text.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ValidationMessage is the hosted service's message for every validation failure.
const ValidationMessage = "Failed to validate the data sent with the request."

// Invalid is a validation error with per-field details.
func Invalid(details map[string][]string) *Error {
	return &Error{Code: CodeBadRequest, Message: ValidationMessage, Details: details}
}

// InvalidField is a validation error about one field.
func InvalidField(field, msg string) *Error {
	return Invalid(map[string][]string{field: {msg}})
}

// Storage sentinels: sqlstore translates driver errors into these and nothing above storage
// looks at a driver error.
var (
	ErrNotFound      = errors.New("not found")
	ErrActorNotFound = errors.New("acting user not found")
	ErrAlreadyExists = errors.New("already exists")
	ErrLimitReached  = errors.New("limit reached")
	ErrUnavailable   = errors.New("database unavailable")
	// ErrFileGone: a message carries a file of the app's that is gone, or going: deleted,
	// or claimed by the orphan sweep (filesweep.go).
	ErrFileGone = errors.New("file swept")
)

// ErrorCode reports the Code of err, or "" when err is not an *Error.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
