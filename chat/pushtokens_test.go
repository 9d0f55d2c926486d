package chat

import (
	"strings"
	"testing"
)

func TestPlatformKinds(t *testing.T) {
	for platform, want := range map[string]PushTokenKind{
		"fcm_android": PushFCM, "fcm_web": PushFCM, "fcm_ionic_cordova_ios": PushFCM,
		"apns_ios_device": PushAPNs, "apns_react_native_device": PushAPNs,
		"apns_ios_voip": PushVoIP, "apns_flutter_voip": PushVoIP,
	} {
		if got, ok := PlatformKind(platform); !ok || got != want {
			t.Errorf("PlatformKind(%q) = %q, %v; want %q", platform, got, ok, want)
		}
	}
	for _, platform := range []string{"", "FCM_ANDROID", "fcm", "apns", "web", "apns_ios"} {
		if _, ok := PlatformKind(platform); ok {
			t.Errorf("PlatformKind(%q) accepted", platform)
		}
	}
	if len(pushPlatforms) != 17 {
		t.Errorf("%d platforms; the hosted API has 9 FCM, 4 APNs device and 4 APNs VoIP ones", len(pushPlatforms))
	}
	if PushFCM.ProviderKind() != ProviderFCM || PushAPNs.ProviderKind() != ProviderAPNs || PushVoIP.ProviderKind() != ProviderAPNs {
		t.Error("VoIP and device tokens go through APNs providers, FCM tokens through FCM ones")
	}
}

func TestPushTokenFields(t *testing.T) {
	s := func(v string) *string { return &v }
	apns := strings.Repeat("ab12", 16)
	for _, tc := range []struct {
		name   string
		in     PushTokenRegister
		want   PushTokenKind
		fields []string // the fields refused
	}{
		{"FCM", PushTokenRegister{Platform: "fcm_web", FCMToken: s("dGhp:APA91bH-x_y")}, PushFCM, nil},
		{"APNs device", PushTokenRegister{Platform: "apns_ios_device", DeviceToken: s(apns)}, PushAPNs, nil},
		{"APNs VoIP", PushTokenRegister{Platform: "apns_ios_voip", VoIPToken: s(strings.ToUpper(apns))}, PushVoIP, nil},
		{"no platform", PushTokenRegister{FCMToken: s("x")}, "", []string{"platform"}},
		{"unknown platform", PushTokenRegister{Platform: "huawei", FCMToken: s("x")}, "", []string{"platform"}},
		{"the platform's field missing", PushTokenRegister{Platform: "fcm_android"}, "", []string{"fcmToken"}},
		{"an empty token", PushTokenRegister{Platform: "fcm_android", FCMToken: s("")}, "", []string{"fcmToken"}},
		{"another kind's field", PushTokenRegister{Platform: "fcm_android", DeviceToken: s(apns)}, "", []string{"deviceToken", "fcmToken"}},
		{"two fields", PushTokenRegister{Platform: "apns_ios_voip", VoIPToken: s(apns), FCMToken: s("x")}, "", []string{"fcmToken"}},
		{"APNs token not hexadecimal", PushTokenRegister{Platform: "apns_ios_device", DeviceToken: s("not-hex-at-all-nope")}, "", []string{"deviceToken"}},
		{"FCM token with a space", PushTokenRegister{Platform: "fcm_ios", FCMToken: s("a b")}, "", []string{"fcmToken"}},
		{"FCM token too long", PushTokenRegister{Platform: "fcm_ios", FCMToken: s(strings.Repeat("a", MaxPushTokenLen+1))}, "", []string{"fcmToken"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := fieldErrors{}
			_, kind := fe.pushTokenOf(tc.in)
			if len(tc.fields) == 0 {
				if len(fe) != 0 || kind != tc.want {
					t.Fatalf("got %q, %v", kind, fe)
				}
				return
			}
			if len(fe) != len(tc.fields) {
				t.Fatalf("refused %v, want %v", fe, tc.fields)
			}
			for _, f := range tc.fields {
				if len(fe[f]) == 0 {
					t.Fatalf("refused %v, want %v", fe, tc.fields)
				}
			}
		})
	}
}

func TestTimezones(t *testing.T) {
	for _, tz := range []string{"", "UTC", "Asia/Kolkata", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "America/Port-au-Prince"} {
		fe := fieldErrors{}
		if fe.timezone(tz); len(fe) != 0 {
			t.Errorf("%q refused", tz)
		}
	}
	for _, tz := range []string{"Asia/", "/Kolkata", "Asia Kolkata", "../../etc/passwd", "a/b/c/d", strings.Repeat("A", 65)} {
		fe := fieldErrors{}
		if fe.timezone(tz); len(fe) == 0 {
			t.Errorf("%q accepted", tz)
		}
	}
}
