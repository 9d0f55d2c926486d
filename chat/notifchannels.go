package chat

import (
	"context"
	"strings"
)

// The providers an app has one of: Twilio for SMS, SendGrid for email, and a custom webhook
// per channel (push, SMS, email). POST stores one (ERR_PROVIDER_ALREADY_EXISTS when the app
// has it), PUT changes the fields it sends (ERR_PROVIDER_NOT_FOUND when it has none), DELETE
// removes it.

// Channel is what a custom provider notifies through.
type Channel string

// The channels.
const (
	ChannelPush  Channel = "push"
	ChannelSMS   Channel = "sms"
	ChannelEmail Channel = "email"
)

// The kinds an app has one of.
const (
	ProviderTwilio      ProviderKind = "twilio"
	ProviderSendGrid    ProviderKind = "sendgrid"
	ProviderCustomPush  ProviderKind = "custom_push"
	ProviderCustomSMS   ProviderKind = "custom_sms"
	ProviderCustomEmail ProviderKind = "custom_email"
)

// The descriptors of the kinds an app has one of: Twilio (its auth token sealed), SendGrid
// (its API key sealed), and the custom webhooks, one kind per channel (Custom), with their
// Basic-auth passwords sealed.
var (
	Twilio = register(&Providers[TwilioSettings, TwilioInput, TwilioProvider, TwilioCredentials]{
		ProviderSpec: ProviderSpec{Kind: ProviderTwilio, Name: "Twilio", Channel: ChannelSMS, Log: LogProviderTwilio, purpose: "twilio_auth_token"},
		apply:        applyTwilio,
		out: func(p Provider, st TwilioSettings) TwilioProvider {
			return TwilioProvider{Enabled: p.Enabled, TwilioSettings: st, AuthTokenHint: p.SecretHint, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
		},
		open: func(out TwilioProvider, token string) (TwilioCredentials, error) {
			return TwilioCredentials{AccountSID: out.AccountSID, AuthToken: token, From: out.SenderPhoneNumber}, nil
		},
	})
	SendGrid = register(&Providers[SendGridSettings, SendGridInput, SendGridProvider, SendGridCredentials]{
		ProviderSpec: ProviderSpec{Kind: ProviderSendGrid, Name: "SendGrid", Channel: ChannelEmail, Log: LogProviderSendGrid, purpose: "sendgrid_api_key"},
		apply:        applySendGrid,
		out: func(p Provider, st SendGridSettings) SendGridProvider {
			return SendGridProvider{Enabled: p.Enabled, SendGridSettings: st, APIKeyHint: p.SecretHint, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
		},
		open: func(_ SendGridProvider, key string) (SendGridCredentials, error) {
			return SendGridCredentials{APIKey: key}, nil
		},
	})
	// customKinds are the custom kinds, by channel.
	customKinds = map[Channel]*customKind{
		ChannelPush:  registerCustom(ProviderCustomPush, ChannelPush),
		ChannelSMS:   registerCustom(ProviderCustomSMS, ChannelSMS),
		ChannelEmail: registerCustom(ProviderCustomEmail, ChannelEmail),
	}
)

type customKind = Providers[CustomSettings, CustomProviderInput, CustomProvider, CustomCredentials]

// registerCustom registers the custom kind of channel c.
func registerCustom(kind ProviderKind, c Channel) *customKind {
	return register(&customKind{
		ProviderSpec: ProviderSpec{Kind: kind, Name: "custom " + string(c), Channel: c, Log: LogProviderCustom, Custom: true,
			purpose: string(kind) + "_basic_password"},
		apply: applyCustom,
		kept:  CustomSettings{Username: "kept"}, // and a password
		out:   customOut,
		open: func(out CustomProvider, password string) (CustomCredentials, error) {
			if !out.UseBasicAuth {
				return CustomCredentials{}, nil
			}
			return CustomCredentials{Username: out.Username, Password: password}, nil
		},
	})
}

// Custom is the descriptor of channel c's custom kind; nil for a channel natter has none for.
func Custom(c Channel) *Providers[CustomSettings, CustomProviderInput, CustomProvider, CustomCredentials] {
	return customKinds[c]
}

// TwilioSettings are the Twilio provider's settings, without its auth token.
type TwilioSettings struct {
	AccountSID        string `json:"twilioAccountSID"`
	SenderPhoneNumber string `json:"twilioSenderPhoneNumber"`
}

// TwilioProvider is the Twilio provider as answers show it.
type TwilioProvider struct {
	Enabled bool
	TwilioSettings
	AuthTokenHint string // SecretHint of the auth token
	CreatedAt     int64
	UpdatedAt     int64
}

// TwilioInput stores (AccountSID, AuthToken and SenderPhoneNumber required) or changes the
// Twilio provider.
type TwilioInput struct {
	AccountSID        *string
	AuthToken         *string
	SenderPhoneNumber *string
	Enabled           *bool
}

// SendGridSettings are the SendGrid provider's settings, without its API key.
type SendGridSettings struct {
	TemplateID            string `json:"sendGridTemplateID"`
	UnsubscribeGroupID    string `json:"sendGridUnsubscribeGroupID"`
	SenderName            string `json:"senderName"`
	SenderEmail           string `json:"senderEmail"`
	AllowEmailReplies     bool   `json:"allowEmailReplies"`
	SenderEmailForReplies string `json:"senderEmailForReplies,omitempty"`
}

// SendGridProvider is the SendGrid provider as answers show it.
type SendGridProvider struct {
	Enabled bool
	SendGridSettings
	APIKeyHint string // SecretHint of the API key
	CreatedAt  int64
	UpdatedAt  int64
}

// SendGridInput stores (APIKey, TemplateID, UnsubscribeGroupID, SenderName and SenderEmail
// required) or changes the SendGrid provider. SenderEmailForReplies "" removes it.
type SendGridInput struct {
	APIKey                *string
	TemplateID            *string
	UnsubscribeGroupID    *string
	SenderName            *string
	SenderEmail           *string
	AllowEmailReplies     *bool
	SenderEmailForReplies *string
	Enabled               *bool
}

// CustomSettings are a custom provider's settings, without its Basic-auth password.
// UseStored is useStoredPhNo (SMS) or useStoredEmailID (email): call the webhook only for
// users whose phone number or email address natter keeps; unused for push.
type CustomSettings struct {
	WebhookURL   string `json:"webhookURL"`
	UseBasicAuth bool   `json:"useBasicAuth"`
	Username     string `json:"basicAuthUsername,omitempty"`
	UseStored    bool   `json:"useStored,omitempty"`
}

// CustomProvider is a channel's custom provider as answers show it.
type CustomProvider struct {
	Channel Channel
	Enabled bool
	CustomSettings
	PasswordHint string // "********" with a password (none of it shows), "" without Basic auth
	CreatedAt    int64
	UpdatedAt    int64
}

// CustomProviderInput stores (Enabled, WebhookURL and UseBasicAuth required; Username and
// Password too with Basic auth) or changes a custom provider.
type CustomProviderInput struct {
	Enabled      *bool
	WebhookURL   *string
	UseBasicAuth *bool
	Username     *string
	Password     *string
	UseStored    *bool
}

// --- Twilio -------------------------------------------------------------------------------

func applyTwilio(_ *Service, f fieldErrors, st *TwilioSettings, p *Provider, in TwilioInput, create bool) string {
	switch {
	case in.AccountSID == nil && create:
		f.add("twilioAccountSID", "The twilioAccountSID field is required.")
	case in.AccountSID == nil:
	case !twilioSIDPattern.MatchString(*in.AccountSID):
		f.add("twilioAccountSID", "The twilioAccountSID must be AC followed by 32 hexadecimal digits.")
	default:
		st.AccountSID = *in.AccountSID
	}
	switch {
	case in.SenderPhoneNumber == nil && create:
		f.add("twilioSenderPhoneNumber", "The twilioSenderPhoneNumber field is required.")
	case in.SenderPhoneNumber == nil:
	case !e164Pattern.MatchString(*in.SenderPhoneNumber):
		f.add("twilioSenderPhoneNumber", "The twilioSenderPhoneNumber must be a phone number in E.164 form, such as +13611364718.")
	default:
		st.SenderPhoneNumber = *in.SenderPhoneNumber
	}
	var secret string
	if in.AuthToken != nil || create {
		secret = deref(in.AuthToken)
		f.secretText("twilioAuthToken", secret, true)
	}
	if in.Enabled != nil {
		p.Enabled = *in.Enabled
	}
	if !create && len(f) == 0 && in.AccountSID == nil && in.AuthToken == nil && in.SenderPhoneNumber == nil && in.Enabled == nil {
		f.add("twilioAccountSID", "Send twilioAccountSID, twilioAuthToken, twilioSenderPhoneNumber or isEnabled to change.")
	}
	return secret
}

// --- SendGrid -----------------------------------------------------------------------------

func applySendGrid(_ *Service, f fieldErrors, st *SendGridSettings, p *Provider, in SendGridInput, create bool) string {
	text := func(field string, v *string, max int, dst *string) {
		switch {
		case v == nil && create:
			f.add(field, "The "+field+" field is required.")
		case v == nil:
		default:
			f.text(field, *v, max, true)
			*dst = *v
		}
	}
	text("sendGridTemplateID", in.TemplateID, MaxTemplateIDLen, &st.TemplateID)
	text("senderName", in.SenderName, MaxSenderNameLen, &st.SenderName)
	switch {
	case in.UnsubscribeGroupID == nil && create:
		f.add("sendGridUnsubscribeGroupID", "The sendGridUnsubscribeGroupID field is required.")
	case in.UnsubscribeGroupID == nil:
	case !digitsPattern.MatchString(*in.UnsubscribeGroupID):
		f.add("sendGridUnsubscribeGroupID", "The sendGridUnsubscribeGroupID must be the group's number.")
	default:
		st.UnsubscribeGroupID = *in.UnsubscribeGroupID
	}
	switch {
	case in.SenderEmail == nil && create:
		f.add("senderEmail", "The senderEmail field is required.")
	case in.SenderEmail != nil:
		f.email("senderEmail", *in.SenderEmail, true)
		st.SenderEmail = *in.SenderEmail
	}
	if in.SenderEmailForReplies != nil {
		f.email("senderEmailForReplies", *in.SenderEmailForReplies, false)
		st.SenderEmailForReplies = *in.SenderEmailForReplies
	}
	if in.AllowEmailReplies != nil {
		st.AllowEmailReplies = *in.AllowEmailReplies
	}
	var secret string
	if in.APIKey != nil || create {
		secret = deref(in.APIKey)
		f.secretText("sendGridApiKey", secret, true)
	}
	if in.Enabled != nil {
		p.Enabled = *in.Enabled
	}
	if !create && len(f) == 0 && in.APIKey == nil && in.TemplateID == nil && in.UnsubscribeGroupID == nil && in.SenderName == nil &&
		in.SenderEmail == nil && in.AllowEmailReplies == nil && in.SenderEmailForReplies == nil && in.Enabled == nil {
		f.add("sendGridApiKey", "Send sendGridApiKey, sendGridTemplateID, sendGridUnsubscribeGroupID, senderName, senderEmail, allowEmailReplies, senderEmailForReplies or isEnabled to change.")
	}
	return secret
}

// --- custom providers ---------------------------------------------------------------------

func customOut(p Provider, st CustomSettings) CustomProvider {
	out := CustomProvider{Channel: p.Kind.spec().Channel, Enabled: p.Enabled, CustomSettings: st, PasswordHint: p.SecretHint,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	if !out.UseBasicAuth {
		out.PasswordHint = ""
	}
	return out
}

// applyCustom checks in against the stored settings st (zero on create) and p, and applies
// it. It returns the password to seal ("" when unchanged); turning Basic auth off drops
// p's.
func applyCustom(s *Service, f fieldErrors, st *CustomSettings, p *Provider, in CustomProviderInput, create bool) (secret string) {
	c, hasPassword := p.Kind.spec().Channel, p.Secret != nil
	if in.Enabled == nil && create {
		f.add("isEnabled", "The isEnabled field is required.")
	} else if in.Enabled != nil {
		p.Enabled = *in.Enabled
	}
	if in.WebhookURL != nil || create {
		st.WebhookURL = s.webhookURL(f, deref(in.WebhookURL), true)
	}
	if in.UseStored == nil && create && c != ChannelPush {
		f.add(c.storedField(""), "The "+c.storedField("")+" field is required.")
	} else if in.UseStored != nil && c != ChannelPush {
		st.UseStored = *in.UseStored
	}
	if in.UseBasicAuth == nil && create {
		f.add("useBasicAuth", "The useBasicAuth field is required.")
	} else if in.UseBasicAuth != nil {
		st.UseBasicAuth = *in.UseBasicAuth
	}
	if in.Username != nil {
		f.text("basicAuthUsername", *in.Username, MaxWebhookUserLen, false)
		if strings.Contains(*in.Username, ":") {
			f.add("basicAuthUsername", "The basicAuthUsername may not contain a colon.")
		}
	}
	if in.Password != nil {
		f.text("basicAuthPassword", *in.Password, MaxWebhookPassLen, false)
	}
	if st.UseBasicAuth {
		if in.Username != nil {
			st.Username = *in.Username
		}
		secret = deref(in.Password)
		if st.Username == "" {
			f.add("basicAuthUsername", "The basicAuthUsername field is required with useBasicAuth.")
		}
		if secret == "" && !hasPassword {
			f.add("basicAuthPassword", "The basicAuthPassword field is required with useBasicAuth.")
		}
	} else {
		st.Username = ""
		p.Secret, p.SecretHint = nil, ""
	}
	if !create && len(f) == 0 && in.Enabled == nil && in.WebhookURL == nil && in.UseBasicAuth == nil && in.Username == nil &&
		in.Password == nil && in.UseStored == nil {
		f.add("webhookURL", "Send isEnabled, webhookURL, useBasicAuth, basicAuthUsername, basicAuthPassword"+c.storedField(", ")+" to change.")
	}
	return secret
}

// storedField names the channel's useStored field after sep, or nothing for push.
func (c Channel) storedField(sep string) string {
	switch c {
	case ChannelSMS:
		return sep + "useStoredPhNo"
	case ChannelEmail:
		return sep + "useStoredEmailID"
	}
	return ""
}

// DeleteProvider removes the app's provider of a kind it has one of (Twilio, SendGrid, a
// custom one).
func (s Notifications) DeleteProvider(ctx context.Context, p Principal, kind ProviderKind) error {
	return s.deleteProvider(ctx, p.App.ID, kind, "")
}

// deref is *p, or "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
