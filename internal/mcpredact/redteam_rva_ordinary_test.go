package mcpredact_test

import "testing"

// Red team rva: type annotations name a credential's field and give its
// type, not its value; they must go out byte for byte.
func TestRedTeamRVA_TypeAnnotations(t *testing.T) {
	rtqUnchanged(t, []string{
		"interface Login {\n  user: string;\n  password: string;\n}\n",
		"type Creds = {\n  password?: string,\n  apiToken?: string | null,\n  secret: Secret;\n};\n",
		"class Db {\n  private readonly password: string;\n  public dbPassword!: string;\n  protected secretKey?: Buffer;\n}\n",
		"function login(user: string, password: string): Promise<void> {}\n",
		"  pub api_token: Option<String>,\n",
		"type Config struct {\n\tPassword string\n\tAPIToken *string `json:\"api_token\"`\n\tSecret   []byte\n}\n",
		"class Settings(BaseSettings):\n    password: str = None\n    db_password: Optional[str] = None\n    secret_key: SecretStr\n",
		"def login(user: str, password: str) -> bool:\n    ...\n",
		"val password: String = \"\"\nvar apiToken: String? = null\n",
		"data class Creds(val user: String, val password: CharArray)\n",
		"  password: z.string().min(12),\n  token: z.string(),\n",
		"password: string;",
		"password?: string,",
		"  password: string,\n  user: string;\n",
		"  password: string | null;\n  token?: string[];\n",
		"  passwords: string[];\n  password: Secret<string>;\n",
		"  password: Field(default=None),\n",
		"db_password: Optional[str] = None\n",
	})
}

// Passwords with the symbols of types are still passwords: only letters
// and a type's spelling read as a type.
func TestRedTeamRVA_TypeLookalikesRedacted(t *testing.T) {
	for _, doc := range []string{
		"password: Fake-Pa55word;\n",
		"password: Pa55<word>;\n",
		"{\"password\": \"Fake.Pa55word,\"}",
		"db_password = \"Tr0ub4dor|3\"\n",
		"password: Hello.World!\n",
	} {
		if got, n := rtqText(t, doc); got == doc || n == 0 {
			t.Errorf("a password went out: %q", doc)
		}
	}
}

// Red team rva's leftovers: a type of letters directly followed by < or
// ! after "password: " is taken by the text rule config-password-unquoted
// (dlp), which reads the letters before the < as the value and cannot see
// what follows its match; the walk's readings leave them alone (above).
// The fix belongs to the rule (dlp); this test asserts today's behaviour so
// that a change there is deliberate.
func TestRedTeamRVA_LeftoverTypesTextRule(t *testing.T) {
	for _, doc := range []string{
		"  password: Option<String>,\n",
		"  password: Record<string, string>;\n",
		"password: String!\n",
	} {
		if got, n := rtqText(t, doc); got == doc || n == 0 {
			t.Errorf("the text rule no longer takes the type (move it to TestRedTeamRVA_TypeAnnotations): %q", doc)
		}
	}
}

// Near misses of red team rva's readings: the same shapes without a
// secret go out byte for byte.
func TestRedTeamRVA_NearMisses(t *testing.T) {
	rtqUnchanged(t, []string{
		// Value elements around name elements that name no credential,
		// or after the parent's end.
		"<entry><value>correct horse battery staple</value><key>title</key></entry>",
		"<entry><value>x</value></entry><entry><key>password</key></entry>",
		"<dict><string>Office Wi-Fi</string><key>PasswordRequired</key><false/></dict>",
		// TOML.
		"db = { password = \"\"\"\"\"\", host = \"db\" }",
		"[tool]\nx = { doc = '''a b c''', password_file = \"/run/secrets/db\" }\n",
		// Options in variables.
		"JAVA_OPTS=\"-Xmx1g -Ddb.password.file=/run/secrets/db -Dserver.port=8080\"\n",
		"JAVA_OPTS=\"-Xmx1g -Ddb.password=${DB_PASSWORD} -Dfile.encoding=UTF-8\"\n",
		"NODE_OPTIONS=\"--max-old-space-size=4096 --password-file=/run/pw\"\n",
		// Properties and Dockerfiles.
		"my\\ password.policy=strict\nmy\\ title=correct horse battery staple\n",
		"ENV DB_PASSWORD_FILE /run/secrets/db_password\nENV PATH /usr/local/bin:$PATH\nENV DB_PASSWORD ${DB_PASSWORD}\n",
		"ENV LANG C.UTF-8\nENV HOME /home/app\n",
		"ENV A=1 B=2 DB_PASSWORD_FILE=/run/secrets/db\nexport PGHOST=db PGPASSWORD=\"$PW\"\n",
		"[Service]\nEnvironment=\"PATH=/usr/bin\" \"LANG=C\"\nEnvironment=\"DB_PASSWORD_FILE=/run/secrets/db\"\n",
		`{"client_secret": "see the vault", "shared_secret": "${SHARED_SECRET}"}`,
		`<a b="&amp;lt;password&amp;gt;${DB_PASSWORD}&amp;lt;/password&amp;gt;"/>`,
		// nginx and Apache directives.
		"proxy_set_header Authorization $http_authorization;\nproxy_set_header Host $host;\nauth_basic \"Restricted area\";\n",
		"proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\nadd_header X-Frame-Options \"SAMEORIGIN\";\n",
		"RequestHeader unset Authorization\nHeader set X-Password-Policy \"min twelve\"\n",
		// Escaped markup.
		`<add key="template" value="&lt;password&gt;${DB_PASSWORD}&lt;/password&gt;"/>`,
		"<description>Set &lt;password&gt; to your own.</description>",
		"<code>&lt;db password=&quot;&quot;/&gt;</code>",
		// Entities and attributes.
		`<!DOCTYPE c [<!ENTITY % password_help "Use twelve characters">]><c/>`,
		`<a title="x < y" href="/reset?password=1">Reset</a>`,
		`<input type="password" placeholder="<at least 12 characters>">`,
		// Secret-named elements that hold prose or a reference.
		"<secret>see the vault</secret>",
		"<clientSecret>${CLIENT_SECRET}</clientSecret>",
		"<secret>\n  <name>db</name>\n  <key>password</key>\n</secret>",
		"<key>Title</key>\n<string>correct horse battery staple</string>\n",
		"<token>the quick brown fox</token>",
		"<apiKey>Your API key here</apiKey>",
		"<secret_question>What was your first car</secret_question>",
	})
}
