package mcpredact_test

import "testing"

// Red team ruc's last findings (fixed after it): XML and TOML spellings of
// a credential's name whose value holds spaces, where only the readings
// with names see it whole. Each went out.
func TestRedTeamRUC_XMLAndQuotedNames(t *testing.T) {
	words := "correct horse battery staple"
	rtqWordsRedacted(t, map[string]string{
		"cdata words":        "<password><![CDATA[" + words + "]]></password>",
		"cdata bracket":      "<password><![CDATA[correct ]horse] battery staple]]></password>",
		"spaced equals":      `<db password = "` + words + `" />`,
		"spaced equals sq":   "<db\n  password =\t'" + words + "'/>",
		"element attributes": `<Password type="string">` + words + `</Password>`,
		"element attrs ns":   `<cfg:dbPassword xml:space="preserve">` + words + `</cfg:dbPassword>`,
		"param name value":   `<param name="pw" value="` + words + `"/>`,
		"add key value":      `<add key="DbPassword" value="` + words + `" />`,
		"value first":        `<param value="` + words + `" name="db_password"/>`,
		"property":           `<property name="db.password" value="` + words + `"/>`,
		"toml quoted":        `"pw" = "` + words + `"`,
		"toml quoted sq":     `'db_password' = '` + words + `'`,
		"toml quoted esc":    `"\u0070\u0077" = "` + words + `"`,
		"toml dotted quoted": `db."password" = "` + words + `"`,
	})
	// Near misses: ordinary XML, HTML and TOML with these shapes.
	rtqUnchanged(t, []string{
		`<param name="pw_min_length" value="12"/>`,
		`<add key="PasswordPolicy" value="twelve" />`,
		`<param name="title" value="correct horse battery staple"/>`,
		`<input type = "password" name = "password" placeholder = "your password here">`,
		`<Password type="string"></Password>`,
		`<description><![CDATA[reset your password in settings]]></description>`,
		`"title" = "correct horse battery staple"`,
		`"password_policy" = "min twelve"`,
		`<a href="/reset">Forgot your password?</a>`,
	})
}
