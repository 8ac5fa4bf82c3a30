package mcpredact_test

import "testing"

// Red team ruh's accepted leftover: a label cell and the value cell after
// it in an HTML table or definition list (<th>Password</th><td>...</td>,
// <dt>Password</dt><dd>...</dd>) are not read as a name and its value.
// Documentation pages describe their fields in the same shape
// (<dt>password</dt><dd>The password the server checks</dd>), and reading
// every label cell's next cell as a credential would redact them; a page
// that shows a real password in a table goes out as the text rules read
// it. This test asserts the current behaviour so a change is deliberate.
func TestRedTeamRUH_LeftoverHTMLTables(t *testing.T) {
	for _, doc := range []string{
		"<dl><dt>Password</dt><dd>correct horse battery staple</dd></dl>",
		"<tr><th>Password</th><td>correct horse battery staple</td></tr>",
		"<dl><dt>password</dt><dd>The password the server checks at sign in</dd></dl>",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%q\nto\n%q", n, doc, got)
		}
	}
}
