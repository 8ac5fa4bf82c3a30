package consent_test

import (
	"errors"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
)

func TestClassifyBuiltinTable(t *testing.T) {
	// Every pattern of ACP §5.5, plus names that only look close.
	cases := map[string]consent.Classification{
		"read_file": {"read", "low"}, "get_user": {"read", "low"}, "list_repos": {"read", "low"}, "search_web": {"read", "low"},
		"write_file": {"write", "medium"}, "create_issue": {"write", "medium"}, "update_row": {"write", "medium"},
		"send_email": {"communication", "high"}, "email_team": {"communication", "high"}, "message_user": {"communication", "high"},
		"delete_file": {"system", "high"}, "remove_user": {"system", "high"}, "drop_table": {"system", "high"},
		"deploy_app": {"system", "high"}, "exec": {"system", "high"}, "execute_sql": {"system", "high"}, "shell_run": {"system", "high"},
		"transfer_funds": {"financial", "critical"}, "pay_invoice": {"financial", "critical"}, "charge_card": {"financial", "critical"},
		"publish_post": {"public", "high"}, "post_comment": {"public", "high"}, "tweet_text": {"public", "high"},
		// Normalized before matching (NFKC, case folding, invisible runes).
		"ＴＲＡＮＳＦＥＲ_funds": {"financial", "critical"}, "Read_File": {"read", "low"}, "\u200bdelete\u200b_x": {"system", "high"},
		// No match: the prefix must be whole ("read" is not "read_*").
		"read": consent.Unclassified, "reader_x": consent.Unclassified, "spread_sheet": consent.Unclassified, "": consent.Unclassified,
	}
	for tool, want := range cases {
		if got := consent.Classify(tool); got != want {
			t.Errorf("Classify(%q) = %v, want %v", tool, got, want)
		}
	}
	if consent.Unclassified.Risk != consent.RiskHigh {
		t.Fatal("unclassified tools must default to high risk (fail closed)")
	}
}

func TestClassifierOverrides(t *testing.T) {
	low := consent.Classification{Category: consent.CategoryRead, Risk: consent.RiskLow}
	c, err := consent.NewClassifier(&consent.ClassifierOptions{
		Overrides: map[string]consent.Classification{
			"Send_Status":   low,
			"launch_rocket": {Category: consent.CategoryPhysical, Risk: consent.RiskCritical},
		},
		Default: &consent.Classification{Category: consent.CategoryUnknown, Risk: consent.RiskMedium},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Classify("send_status"); got != low {
		t.Errorf("override by normalized name: %v", got)
	}
	if got := c.Classify("send_email"); got.Risk != consent.RiskHigh {
		t.Errorf("non-overridden tool: %v", got)
	}
	if got := c.Classify("ＬＡＵＮＣＨ_rocket"); got.Category != consent.CategoryPhysical {
		t.Errorf("override: %v", got)
	}
	if got := c.Classify("frobnicate"); got.Risk != consent.RiskMedium {
		t.Errorf("default: %v", got)
	}
	for name, o := range map[string]*consent.ClassifierOptions{
		"bad risk":        {Overrides: map[string]consent.Classification{"x": {Category: "read", Risk: "huge"}}},
		"empty category":  {Overrides: map[string]consent.Classification{"x": {Risk: "low"}}},
		"duplicate names": {Overrides: map[string]consent.Classification{"x_y": low, "X_Y": low}},
		"empty name":      {Overrides: map[string]consent.Classification{"\u200b": low}},
		"bad default":     {Default: &consent.Classification{Category: "x", Risk: ""}},
	} {
		if _, err := consent.NewClassifier(o); !errors.Is(err, consent.ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", name, err)
		}
	}
}
