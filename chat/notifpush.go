package chat

import "strings"

// Push providers: FCM (a Google service account) and APNs (a token-signing .p8 key). An app
// may have up to MaxPushProviders of each; the first of a kind is its default, and
// SetDefaultPushProvider moves that (notifproviders.go has the rules).

// The push kinds.
const (
	ProviderFCM  ProviderKind = "fcm"
	ProviderAPNs ProviderKind = "apns"
)

// The push kinds' descriptors. FCM providers have a Google service account; Create and
// Update check it and seal its private key; Credentials parses it for the delivery. APNs
// providers have a token-signing key, likewise.
var (
	FCM = register(&Providers[FCMSettings, FCMProviderInput, FCMProvider, FCMCredentials]{
		ProviderSpec: ProviderSpec{Kind: ProviderFCM, Name: "FCM", Channel: ChannelPush, Log: LogProviderFCM, IDs: true,
			Tokens: []PushTokenKind{PushFCM}, purpose: "fcm_private_key"},
		id:    func(in FCMProviderInput) string { return in.ProviderID },
		apply: applyFCM,
		out: func(p Provider, st FCMSettings) FCMProvider {
			return FCMProvider{ID: p.ID, Default: p.Default, FCMSettings: st, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
		},
		open: func(out FCMProvider, pem string) (FCMCredentials, error) {
			key, err := ParseRSAPrivateKey(pem)
			return FCMCredentials{ProjectID: out.ProjectID, ClientEmail: out.ClientEmail, PrivateKeyID: out.PrivateKeyID, PrivateKey: key}, err
		},
	})
	APNs = register(&Providers[APNsSettings, APNsProviderInput, APNsProvider, APNsCredentials]{
		ProviderSpec: ProviderSpec{Kind: ProviderAPNs, Name: "APNs", Channel: ChannelPush, Log: LogProviderAPNs, IDs: true,
			Tokens: []PushTokenKind{PushAPNs, PushVoIP}, purpose: "apns_p8_key"},
		id:    func(in APNsProviderInput) string { return in.ProviderID },
		apply: applyAPNs,
		out: func(p Provider, st APNsSettings) APNsProvider {
			return APNsProvider{ID: p.ID, Default: p.Default, APNsSettings: st, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
		},
		open: func(out APNsProvider, pem string) (APNsCredentials, error) {
			key, err := ParseAPNsKey(pem)
			return APNsCredentials{KeyID: out.KeyID, TeamID: out.TeamID, BundleID: out.BundleID, Production: out.Production, Key: key}, err
		},
	})
)

// PayloadNotification says, for one platform, whether the push carries a visible
// notification block besides its data (chat messages, calls); false: data only, the app
// shows it.
type PayloadNotification struct {
	Chat bool `json:"chat"`
	Call bool `json:"call"`
}

// NotificationInPayload is PayloadNotification per platform of an FCM provider.
type NotificationInPayload struct {
	IOS     PayloadNotification `json:"ios"`
	Android PayloadNotification `json:"android"`
	Web     PayloadNotification `json:"web"`
}

// FCMSettings are an FCM provider's settings: its service account without the private key.
type FCMSettings struct {
	ProjectID             string                `json:"projectId"`
	ClientEmail           string                `json:"clientEmail"`
	PrivateKeyID          string                `json:"privateKeyId,omitempty"`
	Filename              string                `json:"serviceAccountFilename,omitempty"`
	NotificationInPayload NotificationInPayload `json:"notificationInPayload"`
}

// FCMProvider is an FCM provider as answers show it.
type FCMProvider struct {
	ID      string
	Default bool
	FCMSettings
	CreatedAt int64
	UpdatedAt int64
}

// FCMProviderInput creates (all of it) or updates (the fields set) an FCM provider.
type FCMProviderInput struct {
	ProviderID            string
	ServiceAccount        *ServiceAccount // replaced whole on update
	Filename              *string
	NotificationInPayload *NotificationInPayload // replaced whole on update
}

// APNsSettings are an APNs provider's settings, without its key.
type APNsSettings struct {
	KeyID                   string `json:"keyId"`
	TeamID                  string `json:"teamId"`
	BundleID                string `json:"bundleId"`
	Filename                string `json:"p8KeyFilename,omitempty"`
	IncludeContentAvailable bool   `json:"includeContentAvailable"`
	IncludeMutableContent   bool   `json:"includeMutableContent"`
	Production              bool   `json:"productionMode"` // false: the sandbox
}

// APNsProvider is an APNs provider as answers show it.
type APNsProvider struct {
	ID      string
	Default bool
	APNsSettings
	CreatedAt int64
	UpdatedAt int64
}

// APNsProviderInput creates (KeyID, TeamID, BundleID and P8Key required) or updates (the
// fields set) an APNs provider.
type APNsProviderInput struct {
	ProviderID              string
	KeyID                   *string
	TeamID                  *string
	BundleID                *string
	Filename                *string
	P8Key                   *string
	IncludeContentAvailable *bool
	IncludeMutableContent   *bool
	Production              *bool
}

// applyFCM checks in and applies it to settings; it returns the private key to seal, ""
// when unchanged.
func applyFCM(_ *Service, f fieldErrors, st *FCMSettings, _ *Provider, in FCMProviderInput, create bool) string {
	var secret string
	switch {
	case in.ServiceAccount != nil:
		sa := *in.ServiceAccount
		if f.serviceAccount("serviceAccountCreds", sa) != nil {
			st.ProjectID, st.ClientEmail, st.PrivateKeyID, secret = sa.ProjectID, sa.ClientEmail, sa.PrivateKeyID, sa.PrivateKey
		}
	case create:
		f.add("serviceAccountCreds", "The serviceAccountCreds field is required: the service account's JSON from the Firebase console.")
	}
	if in.Filename != nil {
		f.text("serviceAccountFilename", *in.Filename, MaxFilenameLen, false)
		st.Filename = *in.Filename
	}
	if in.NotificationInPayload != nil {
		st.NotificationInPayload = *in.NotificationInPayload
	}
	if !create && in.ServiceAccount == nil && in.Filename == nil && in.NotificationInPayload == nil && len(f) == 0 {
		f.add("serviceAccountCreds", "Send serviceAccountCreds, serviceAccountFilename or notificationInPayload to change.")
	}
	return secret
}

// applyAPNs checks in and applies it to settings; it returns the key to seal, "" when
// unchanged.
func applyAPNs(_ *Service, f fieldErrors, st *APNsSettings, _ *Provider, in APNsProviderInput, create bool) string {
	appleID := func(field string, v *string, dst *string) {
		switch {
		case v == nil && create:
			f.add(field, "The "+field+" field is required.")
		case v == nil:
		case !appleIDPattern.MatchString(strings.ToUpper(*v)):
			f.add(field, "The "+field+" must be the 10 letters and digits Apple gives.")
		default:
			*dst = strings.ToUpper(*v)
		}
	}
	appleID("keyId", in.KeyID, &st.KeyID)
	appleID("teamId", in.TeamID, &st.TeamID)
	switch {
	case in.BundleID == nil && create:
		f.add("bundleId", "The bundleId field is required.")
	case in.BundleID == nil:
	case len(*in.BundleID) > MaxBundleIDLen || !bundleIDPattern.MatchString(*in.BundleID):
		f.add("bundleId", "The bundleId must be an app's bundle identifier, such as com.example.app.")
	default:
		st.BundleID = *in.BundleID
	}
	if in.Filename != nil {
		f.text("p8KeyFilename", *in.Filename, MaxFilenameLen, false)
		st.Filename = *in.Filename
	}
	var secret string
	switch {
	case in.P8Key != nil && *in.P8Key != "":
		if _, err := ParseAPNsKey(*in.P8Key); err != nil {
			f.add("p8Key", "The p8Key "+err.Error()+".")
		} else {
			secret = *in.P8Key
		}
	case in.P8Key != nil || create:
		f.add("p8Key", "The p8Key field is required: the .p8 key file's contents.")
	}
	for _, b := range []struct {
		v   *bool
		dst *bool
	}{{in.IncludeContentAvailable, &st.IncludeContentAvailable}, {in.IncludeMutableContent, &st.IncludeMutableContent}, {in.Production, &st.Production}} {
		if b.v != nil {
			*b.dst = *b.v
		}
	}
	if !create && len(f) == 0 && in.KeyID == nil && in.TeamID == nil && in.BundleID == nil && in.Filename == nil && in.P8Key == nil &&
		in.IncludeContentAvailable == nil && in.IncludeMutableContent == nil && in.Production == nil {
		f.add("p8Key", "Send keyId, teamId, bundleId, p8Key, p8KeyFilename, includeContentAvailable, includeMutableContent or productionMode to change.")
	}
	return secret
}
