package mcpredact_test

import "testing"

// Red team rva: a password of words whose first word a text rule takes
// alone ("Fake-Pa55", a digit and a symbol) went out with its other words
// wherever the value is unquoted: the walk read the whole value, but
// found the text scan "covered" it (its range reached into the value and
// stopped at a space) and left the text to the scan, which redacts only
// the first word.
func TestRedTeamRVA_PhraseFirstWordTaken(t *testing.T) {
	rtqWordsRedacted(t, map[string]string{
		"properties": "db.host=db\ndb.password=Fake-Pa55 horse battery\n",
		"env":        "PASSWORD=Fake-Pa55 horse battery\n",
		"yaml":       "db:\n  password: Fake-Pa55 horse battery\n",
		"ini":        "[db]\npw = Fake-Pa55 horse battery\n",
		"export":     "export DB_PASSWORD=Fake-Pa55 horse battery\n",
	})
	// Near misses: a value of one word the rules take keeps the text's
	// layout (the text scan's output), and prose after a value is no
	// word of it.
	for doc, want := range map[string]string{
		"db.password=Fake-Pa55word!\nhost=db\n":      "db.password=[REDACTED:generic-password]\nhost=db\n",
		"password: Fake-Pa55word! # see the vault\n": "password: [REDACTED:config-password-unquoted] # see the vault\n",
	} {
		if got, _ := rtqText(t, doc); got != want {
			t.Errorf("%q: got %q, want %q", doc, got, want)
		}
	}
}
