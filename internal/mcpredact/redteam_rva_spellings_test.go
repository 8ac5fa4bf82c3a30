package mcpredact_test

import (
	"testing"
)

// Red team rva: spellings the readings of red teams ruc, ruf and ruh did
// not take, each with a password with spaces (which the text rules end at
// its first space, and "correct" is no secret to them).
func TestRedTeamRVA_Spellings(t *testing.T) {
	w := "correct horse battery staple"
	rtqWordsRedacted(t, map[string]string{
		// A value element before its name element.
		"value before key":  "<entry><value>" + w + "</value><key>password</key></entry>",
		"value before name": "<property>\n  <value>" + w + "</value>\n  <name>db.password</name>\n</property>",
		"string before key": "<dict><string>" + w + "</string><key>Password</key></dict>",
		// TOML's multi-line strings inside an inline table.
		"inline multi-line":       `db = { password = """` + w + `""" }`,
		"inline multi-line lit":   `db = { user = "app", pw = '''` + w + `''' }`,
		"inline multi-line lines": "db = { password = \"\"\"\n" + w + "\n\"\"\", host = \"db\" }\n",
		// An unquoted option inside a quoted variable.
		"JAVA_OPTS unquoted -D": "JAVA_OPTS=\"-Xmx1g -Ddb.password=" + w + "\"\n",
		"JAVA_OPTS -D then opt": "export JAVA_OPTS=\"-Ddb.password=" + w + " -Xmx1g\"\n",
		"CATALINA_OPTS --":      "CATALINA_OPTS='--spring.datasource.password=" + w + "'\n",
		// A properties key with an escaped space.
		"properties escaped":     "my\\ password=" + w + "\n",
		"properties escaped sep": "db\\ password : " + w + "\n",
		// Dockerfile's ENV NAME value.
		"dockerfile ENV space": "FROM postgres:16\nENV DB_PASSWORD " + w + "\n",
		"dockerfile env lower": "env POSTGRES_PASSWORD " + w + "\n",
		// nginx's and Apache's header directives.
		"nginx basic":            "location / {\n  proxy_set_header Authorization \"Basic Y29ycmVjdDpob3JzZSBiYXR0ZXJ5\";\n}\n",
		"nginx bearer words":     "proxy_set_header Authorization \"Bearer " + w + "\";\n",
		"json auth bearer words": `{"auth": "Bearer ` + w + `", "host": "db"}`,
		"nginx password":         "  set $db_password \"" + w + "\";\n",
		"apache header":          "RequestHeader set X-Api-Password \"" + w + "\"\n",
		// XML escaped inside an attribute or an element.
		"escaped in attribute": `<add key="settings" value="&lt;password&gt;` + w + `&lt;/password&gt;"/>`,
		"escaped in element":   "<payload>&lt;db password=&quot;" + w + "&quot;/&gt;</payload>",
		// A DTD's parameter entity.
		"parameter entity": `<!DOCTYPE c [<!ENTITY % db_password "` + w + `">]><c/>`,
		// < inside an attribute's value (HTML allows it).
		"lt in attribute": `<db password="correct horse < battery staple"/>`,
		"lt in single":    `<db password='correct <horse> battery staple'/>`,
		// A secret-named element whose value has spaces.
		"secret element":       "<secret> Fake Pa55 word horse </secret>",
		"client secret":        "<clientSecret>correct horse battery staple</clientSecret>",
		"json client secret":   `{"client_secret": "` + w + `", "host": "db"}`,
		"ENV several pairs":    "ENV A=1 DB_PASSWORD=\"" + w + "\"\n",
		"export several pairs": "export PGHOST=db PGPASSWORD='" + w + "'\n",
		"systemd Environment":  "[Service]\nEnvironment=\"DB_PASSWORD=" + w + "\"\n",
		"docker -e":            "docker run -e=\"DB_PASSWORD=" + w + "\" postgres\n",
		"escaped twice":        `<a b="&amp;lt;password&amp;gt;` + w + `&amp;lt;/password&amp;gt;"/>`,
		"ENV tab":              "ENV\tDB_PASSWORD\t" + w + "\n",
		"secret assignment":    "shared_secret = \"correct horse battery staple\"\n",
	})
}
