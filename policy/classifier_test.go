package policy_test

import (
	"errors"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
)

func TestClassifyBuiltinTable(t *testing.T) {
	unclassified := policy.Class{Category: policy.CategoryUnknown, Risk: policy.RiskHigh}
	// Every pattern of ACP §5.5, plus names that only look close.
	cases := map[string]policy.Class{
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
		"read": unclassified, "reader_x": unclassified, "spread_sheet": unclassified, "": unclassified,
	}
	for tool, want := range cases {
		if got := policy.Classify(tool); got != want {
			t.Errorf("Classify(%q) = %v, want %v", tool, got, want)
		}
	}
	if unclassified.Risk != policy.RiskHigh {
		t.Fatal("unclassified tools must default to high risk (fail closed)")
	}
}

func TestClassifierOverrides(t *testing.T) {
	low := policy.Class{Category: policy.CategoryRead, Risk: policy.RiskLow}
	c, err := policy.NewClassifier(&policy.ClassifierOptions{
		Overrides: map[string]policy.Class{
			"Send_Status":   low,
			"launch_rocket": {Category: policy.CategoryPhysical, Risk: policy.RiskCritical},
		},
		Default: &policy.Class{Category: policy.CategoryUnknown, Risk: policy.RiskMedium},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Classify("send_status"); got != low {
		t.Errorf("override by normalized name: %v", got)
	}
	if got := c.Classify("send_email"); got.Risk != policy.RiskHigh {
		t.Errorf("non-overridden tool: %v", got)
	}
	if got := c.Classify("ＬＡＵＮＣＨ_rocket"); got.Category != policy.CategoryPhysical {
		t.Errorf("override: %v", got)
	}
	if got := c.Classify("frobnicate"); got.Risk != policy.RiskMedium {
		t.Errorf("default: %v", got)
	}
	for name, o := range map[string]*policy.ClassifierOptions{
		"bad risk":        {Overrides: map[string]policy.Class{"x": {Category: "read", Risk: "huge"}}},
		"empty category":  {Overrides: map[string]policy.Class{"x": {Risk: "low"}}},
		"duplicate names": {Overrides: map[string]policy.Class{"x_y": low, "X_Y": low}},
		"empty name":      {Overrides: map[string]policy.Class{"\u200b": low}},
		"bad default":     {Default: &policy.Class{Category: "x", Risk: ""}},
	} {
		if _, err := policy.NewClassifier(o); !errors.Is(err, policy.ErrInvalidClassifier) {
			t.Errorf("%s: %v, want ErrInvalidOptions", name, err)
		}
	}
}
