package mcpredact

import (
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

var rvaScanner = sync.OnceValues(func() (*dlp.Scanner, error) { return dlp.New(dlp.Builtin(), nil) })

// rvaTexts returns the texts a client receives for a result of the given
// texts, and the findings.
func rvaTexts(t *testing.T, texts ...string) ([]string, []dlp.Finding) {
	t.Helper()
	s, err := rvaScanner()
	if err != nil {
		t.Fatal(err)
	}
	res := &mcp.CallToolResult{}
	for _, x := range texts {
		res.Content = append(res.Content, &mcp.TextContent{Text: x})
	}
	out, f, err := Result(s, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range out.(*mcp.CallToolResult).Content {
		got = append(got, c.(*mcp.TextContent).Text)
	}
	return got, f
}

// Red team rva: a text packed with credential-named values cost the
// scanner's rules a match per value (a MiB of them took seconds:
// BenchmarkResultDenseValues). Past maxAssignValues values read in one
// walk, a text is withheld whole, and the finding says why. The texts
// here are small (the cap, not the size, is what is tested).
func TestRedTeamRVA_DenseValuesWithheld(t *testing.T) {
	marker := "[REDACTED:" + valuesRule + "]"
	for name, doc := range map[string]string{
		"lines":    strings.Repeat("pw=x\n", maxAssignValues+1),
		"elements": strings.Repeat("<pw>x</pw>", maxAssignValues+1),
		"pairs":    `<a b="` + strings.Repeat("pw=x;", maxAssignValues+1) + `"/>`,
	} {
		got, f := rvaTexts(t, doc)
		if got[0] != marker || len(f) != 1 || f[0].Rule != valuesRule {
			t.Errorf("%s: not withheld (%v): %.80q", name, f, got[0])
		}
	}
	// The budget is the walk's: two texts of a result that hold more
	// together.
	half := strings.Repeat("pw=x\n", maxAssignValues/2+1)
	got, f := rvaTexts(t, half, half)
	if got[0] != half || got[1] != marker || len(f) != 1 {
		t.Errorf("the second text past the budget is not withheld (%v): %.40q, %.40q", f, got[0], got[1])
	}
}

// Near misses: a configuration below the cap is read value by value as
// before (its secrets redacted, the rest unchanged), and a value the
// overlap drops (the members of a connection string inside a credential's
// attribute) does not count.
func TestRedTeamRVA_DenseValuesNearMisses(t *testing.T) {
	var b strings.Builder
	for range 200 {
		b.WriteString("db.host=db.internal\ndb.password=${DB_PASSWORD}\npw=x\n")
	}
	doc := b.String()
	if got, f := rvaTexts(t, doc); got[0] != doc || len(f) != 0 {
		t.Errorf("a configuration below the cap changed (%v)", f)
	}
	doc = "db.user=app\ndb.password=Fake Pa55 horse\n" + strings.Repeat("pw=x\n", 100)
	got, _ := rvaTexts(t, doc)
	if strings.Contains(got[0], "horse") || strings.Contains(got[0], valuesRule) || !strings.Contains(got[0], "db.user=app\n") {
		t.Errorf("a configuration below the cap is not read value by value: %.120q", got[0])
	}
	doc = `<a password="` + strings.Repeat("pw=x;", maxAssignValues+1) + `"/>`
	if got, f := rvaTexts(t, doc); strings.Contains(got[0], valuesRule) {
		t.Errorf("values inside one kept value counted (%v)", f)
	}
}
