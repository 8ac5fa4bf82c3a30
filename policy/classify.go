package policy

import (
	"strings"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// Category is an ACP action category (ACP §5.3).
type Category string

// The ACP categories. CategoryUnknown is for names the table does not know.
const (
	CategoryRead          Category = "read"
	CategoryWrite         Category = "write"
	CategoryCommunication Category = "communication"
	CategoryFinancial     Category = "financial"
	CategorySystem        Category = "system"
	CategoryPublic        Category = "public"
	CategoryPhysical      Category = "physical"
	CategoryUnknown       Category = "unknown"
)

// Risk is a risk level (ACP §5.1 level, §5.5 default risk).
type Risk string

// The risk levels, lowest first.
const (
	RiskLow      Risk = "low"
	RiskMedium   Risk = "medium"
	RiskHigh     Risk = "high"
	RiskCritical Risk = "critical"
)

// Valid reports whether r is one of the four ACP levels.
func (r Risk) Valid() bool { return r.Rank() > 0 }

// Rank orders risk levels: low 1 ... critical 4; anything else 0.
func (r Risk) Rank() int {
	switch r {
	case RiskLow:
		return 1
	case RiskMedium:
		return 2
	case RiskHigh:
		return 3
	case RiskCritical:
		return 4
	}
	return 0
}

// Class is a tool's category and default risk.
type Class struct {
	Category Category
	Risk     Risk
}

// classTable is ACP §5.5, in the spec's order; the first matching prefix wins.
var classTable = []struct {
	prefixes []string
	class    Class
}{
	{[]string{"read_", "get_", "list_", "search_"}, Class{CategoryRead, RiskLow}},
	{[]string{"write_", "create_", "update_"}, Class{CategoryWrite, RiskMedium}},
	{[]string{"send_", "email_", "message_"}, Class{CategoryCommunication, RiskHigh}},
	{[]string{"delete_", "remove_", "drop_"}, Class{CategorySystem, RiskHigh}},
	{[]string{"deploy_", "exec", "shell_"}, Class{CategorySystem, RiskHigh}},
	{[]string{"transfer_", "pay_", "charge_"}, Class{CategoryFinancial, RiskCritical}},
	{[]string{"publish_", "post_", "tweet_"}, Class{CategoryPublic, RiskHigh}},
}

// Classify returns the ACP §5.5 class of a tool name (normalized here). A
// name the table does not know is CategoryUnknown with RiskHigh: an
// unknown action is treated as a risky one.
func Classify(tool string) Class {
	n := normalize.Name(tool)
	for _, row := range classTable {
		for _, p := range row.prefixes {
			if strings.HasPrefix(n, p) {
				return row.class
			}
		}
	}
	return Class{CategoryUnknown, RiskHigh}
}
