package consenttest_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/consenttest"
)

// A custom channel's test runs the kit with a fake human on the other end.
func ExampleTestChannel() {
	_ = func(t *testing.T) {
		consenttest.TestChannel(t, func(t *testing.T) (consent.Channel, consenttest.Human) {
			ch, human := newMyChannelWithFakeHuman(t)
			return ch, human
		})
	}
}

func ExampleTestNonceStore() {
	_ = func(t *testing.T) {
		consenttest.TestNonceStore(t, func(t *testing.T) consent.NonceStore {
			s, err := consent.NewMemoryNonceStore(nil)
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	}
}

// newMyChannelWithFakeHuman stands for the channel under test.
func newMyChannelWithFakeHuman(*testing.T) (consent.Channel, consenttest.Human) { return nil, nil }
