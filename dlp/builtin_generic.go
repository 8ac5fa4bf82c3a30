package dlp

// Formats not tied to one vendor: private keys, JWTs, credentials in URLs
// and headers, and generic secret assignments.

// secretNames are the names the unquoted generic rules look for, and
// unquotedValue the value they redact: at least 16 characters of a token
// alphabet (percent escapes included: a presigned URL's
// X-Amz-Security-Token=...%2F%2F...), not ending in a dot, with base64
// padding. A bare "token" counts
// only right before its colon or equals sign and a flag only in lower case,
// without case folding: the literals the scanner looks for are then
// "token:" and "--token", not "token", which is in every parser's source.
const (
	secretNames = `api[_-]?key|apikey|secret[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token|api[_-]?token|private[_-]?token|refresh[_-]?token|session[_-]?token|secret`
	nameWord    = `(?:[A-Za-z][a-z]*(?:[A-Z][a-z]+)*[0-9]{0,4}|[0-9]{1,8}[a-z]{0,2})`
	// escQuote is a member name's closing quote, bare or escaped (a JSON
	// document inside a JSON string: {\"password\": \"...\"}, red team rtm).
	escQuote = `(?:\\{0,7}["'])?`
	// envPassword is an environment variable whose upper-case name ends in
	// _PASS or _PW (DB_PASS=..., as env and docker inspect print it), a
	// name generic-password reads as a password's.
	envPassword = `(?-i:[A-Z0-9]_(?:PASS|PW))`
	// secretTail is the assignment and value of generic-secret and
	// generic-secret-key: a quoted value (quotes bare or escaped) holding a
	// digit or symbol, or an unquoted token of at least 16 characters after
	// an equals sign.
	secretTail = `(?:` + escQuote + `[ \t]{0,4}` + assign + `[ \t]{0,4}(?:"(?P<secret>[A-Za-z]{0,255}[^A-Za-z"\s][^"\s]{0,255})"|'(?P<secret2>[A-Za-z]{0,255}[^A-Za-z'\s][^'\s]{0,255})'|\\{1,7}"(?P<secret4>[A-Za-z]{0,255}[^A-Za-z"\s\\][^"\s\\]{0,255})\\{1,7}")|=(?P<secret3>[A-Za-z0-9_.~+-](?:[A-Za-z0-9_.~+/-]|%[0-9A-Fa-f][0-9A-Fa-f]){15,255}))`
	// passwordNames are a password's names to the password rules: the
	// English ones, spelled apart or with symbols for letters (PASS_WORD,
	// p@ssw0rd, pa$$word), and the words of other languages, which reached
	// the client as "пароль: ...", "密码：...", "mot de passe: ..." (red
	// team rtq). A Latin-script word of another language starts a name or
	// follows _ or a non-word byte (theslogan holds no heslo); a word of
	// another script has no such boundary.
	// Two sets, each small enough for the scanner to derive the
	// literals it looks for.
	passwordNames = `pass[_ -]word|p[@4]ss(?:w[o0]rd|wd)|pa\$\$w[o0]rd|passw0rd` +
		`|(?:\b|_)(?:passwort|kennwort|contrase(?:ñ|n)as?|mot[_ -]?de[_ -]?passe|senha|wachtwoord|hasło|l(?:ö|o)senord|salasana|adgangskode` +
		`|heslo|jelsz(?:ó|o)|lozinka|geslo|kodeord|passord|parool|(?:ş|s)ifre|mdp)`
	passwordScripts = `пароль|密码|密碼|口令|パスワード|비밀번호|암호|κωδικός`
	// secretNamesIntl are the words for a token or a secret in other
	// languages (red team rtq), read by generic-secret and
	// generic-secret-unquoted.
	secretNamesIntl = `(?:\b|_)jeton|токен|секрет|令牌|秘密|密钥|秘钥|密鑰|토큰|トークン|シークレット`
	// assign is a name's assignment: = := : => or a fullwidth colon.
	assign = `(?:=|:=|:|=>|：)`
	// bracketed is a password's value in brackets, as log lines and
	// toString methods print one (password=[...], password=(...),
	// {password=<...>}), a quoted one inside them included
	// (password={"..."}, password=['...']): one value of no space, comma
	// or semicolon, that ends where the bracket does, so a list, a
	// Markdown link, a template or a regular expression's class
	// ([A-Za-z0-9!]{12}) is not one (red team rty). A space may pad the
	// value inside its brackets (password=[ ... ], red team rtc).
	bracketed = `[\[({<] ?["']?(?P<secret5>[A-Za-z]{0,127}[^A-Za-z\s\[\](){}<>"',;][^\s\[\](){}<>"',;]{0,127})["']? ?[\])}>](?:[\s,;)\]}>&"']|$)` +
		// A bracket never closed ends its value at white space or the
		// end of the text (password=[Fake-Pa55word! user=bob, a log line
		// cut after the value; red team rtd).
		`|[\[({<](?P<secret6>[A-Za-z]{0,127}[^A-Za-z\s\[\](){}<>"',;][^\s\[\](){}<>"',;]{0,127})(?:[ \t\r\n]|$)`
	// passwordNamesEN and genericSecretNames are the names generic-password
	// and generic-secret start from.
	passwordNamesEN    = `password|passwd|pwd|passphrase|passcode`
	genericSecretNames = `api[_-]?key|apikey|secret[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token|api[_-]?token|private[_-]?token|session[_-]?token|refresh[_-]?token|security[_-]?token|id[_-]?token|secret`
	// passwordMeta and secretMeta are the last words of a name that say
	// its value describes or identifies a credential, not that it is one
	// (password_policy, api_key_id: red team rtr).
	passwordMeta = `(?:polic(?:y|ies)|rules?|(?:min|max)?[_.-]?length|strength|complexity|pattern|regexp?|format|type|mode|age|expiry|expiration|history|prompt|label|field|id)`
	secretMeta   = `(?:ids?|version|arn|ref|type|polic(?:y|ies)|length|header|label|field|format)`
	// passwordMetaCamel and secretMetaCamel are the same words in camel
	// case (passwordPolicy, apiKeyId).
	passwordMetaCamel = `(?:Polic(?:y|ies)|Rules?|(?:Min|Max)?Length|Strength|Complexity|Pattern|Regexp?|Format|Type|Mode|Age|Expiry|Expiration|History|Prompt|Label|Field|I[dD])`
	secretMetaCamel   = `(?:I[dD]s?|Version|A[rR][nN]|Ref|Type|Polic(?:y|ies)|Length|Header|Label|Field|Format)`
	unquotedValue     = `[A-Za-z0-9_~+-](?:[A-Za-z0-9_.~+/-]|%[0-9A-Fa-f][0-9A-Fa-f]){14,510}[A-Za-z0-9_~+/-]={0,2}`
)

// metaName is the branch a generic rule tries first after a credential's
// name: a last word that says the value describes or identifies a
// credential (password_policy, apiKeyId), with an empty secret group
// before the rule's own. Leftmost-first matching takes this branch
// whenever the rest of the rule matches after it, and the match is then
// dropped when its value reads as a setting or an identifier
// (settingValue, pattern.go): a setting about a credential, or its
// identifier, is no credential (red team rtr), but a password or token
// under such a name still is (password_id=Fake-Pa55word!, red team rtu).
// RE2 has no look-ahead to
// leave such names out of the rule's name instead. As a branch of the
// name, the literals the scanner derives and the literals every match
// must hold stay as they were; the first draft, a branch of its own that
// took the assignment and value, made the rules look at every password's
// name (2-3x slower on a manifest full of them). The word follows a
// separator or starts with a capital (camel, written so): with the
// separator optional, the NFA added a thread for every word, case-folded,
// after every password's name.
func metaName(meta, camel string) string {
	return `(?:[_.-](?i:` + meta + `)|(?-i:` + camel + `))(?P<secret0>)`
}

func genericRules() []Rule {
	b62 := func(n int) string { return fill(fakeAlnum, n) }
	pemBody := "\n" + fill(fakeB64, 64) + "\n" + fill(fakeB64, 40) + "=\n"
	jwtPart := func(n int) string { return fill("FAKEjwt0example_part-1", n) }
	rules := []Rule{
		mk("private-key",
			`-----BEGIN[A-Z0-9 ]{0,32} PRIVATE KEY(?: BLOCK)?-----(?:(?:[^\n]*\n){0,150}?[^\n]*?-----END[A-Z0-9 ]{0,32} PRIVATE KEY(?: BLOCK)?-----|(?:[^\n]*[A-Za-z0-9+/=]{16}[^\n]*(?:\n|$)|[A-Za-z0-9+/=\s\\:,.-]+)*)`,
			"PEM private key block (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted, PGP), whole, from the BEGIN line to the END line within 150 lines whatever separates its lines (line numbers, <br>, quotes); a block without its END line is redacted to the end of its body: base64 characters and every following line that holds a run of 16 of them.",
			[]string{
				"-----BEGIN RSA " + "PRIVATE KEY-----" + pemBody + "-----END RSA " + "PRIVATE KEY-----",
				"key: -----BEGIN " + "PRIVATE KEY-----" + pemBody,
				`"-----BEGIN OPENSSH ` + `PRIVATE KEY-----\n` + fill(fakeB64, 70) + `\n-----END OPENSSH ` + `PRIVATE KEY-----\n"`,
				"  1| -----BEGIN RSA " + "PRIVATE KEY-----\n  2| " + fill(fakeB64, 64) + "\n  3| -----END RSA " + "PRIVATE KEY-----",
				"-----BEGIN EC " + "PRIVATE KEY-----<br>" + fill(fakeB64, 64) + "<br>-----END EC " + "PRIVATE KEY-----",
				`["-----BEGIN ` + `PRIVATE KEY-----", "` + fill(fakeB64, 64) + `", "-----END ` + `PRIVATE KEY-----"]`,
				"  1| -----BEGIN OPENSSH " + "PRIVATE KEY-----\n  2| " + fill(fakeB64, 64) + "\n  3| " + fill(fakeB64, 64) + "\n(output truncated)",
			},
			[]string{"-----BEGIN PUBLIC KEY-----" + pemBody + "-----END PUBLIC KEY-----", "-----BEGIN CERTIFICATE-----" + pemBody, "the private key is stored elsewhere"}),
		mk("jwt",
			`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
			"JSON Web Token (JWS compact form): base64url header and payload starting with eyJ, and a signature.",
			[]string{"Bearer " + "eyJ" + jwtPart(30) + ".eyJ" + jwtPart(60) + "." + jwtPart(43)},
			[]string{"eyJ" + jwtPart(30) + "." + jwtPart(60) + "." + jwtPart(43), "eyJ" + jwtPart(30) + ".eyJ" + jwtPart(60)}),
		mk("database-url",
			`(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb)://[^:/\s@"'<>]{0,64}:(?P<secret>[^@/\s"'<>]{1,128})@`,
			"Database or broker connection URL with a password (with or without a user name); the password is redacted unless it is a template such as ${DB_PASSWORD}.",
			[]string{"DATABASE_URL=postgres://app:" + "Fake-Pa55word" + "@db.example.internal:5432/app", "mongodb+srv://u:" + b62(20) + "@cluster0.example.net",
				"REDIS_URL=redis://:" + b62(24) + "@cache.example.internal:6379/0"},
			[]string{"postgres://db.example.internal:5432/app", "postgres://app@db.example.internal/app", "postgres://app:${DB_PASSWORD}@db/app",
				"redis://:{{ .Values.redisPassword }}@cache:6379"}),
		mk("url-credentials",
			`\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^:/\s@"'<>]{1,64}:(?P<secret>[^@/\s"'<>]{3,128})@[A-Za-z0-9.\[-]`,
			"User and password embedded in any other URL; the password is redacted unless it is a template.",
			[]string{"git clone https://user:" + "Fake-Pa55word" + "@git.example.com/repo.git", "ftp://admin:" + b62(12) + "@files.example.org/"},
			[]string{"https://git.example.com/user@example.com", "https://example.com:8443/path", "mailto:user@example.com", "https://ci:${CI_JOB_TOKEN}@git.example.com/x.git"}),
		mk("authorization-bearer",
			`(?i)\b(?:authorization|proxy-authorization)["']?[ \t]{0,4}[:=][ \t]{0,4}["']?(?:bearer|token)[ \t]{1,4}(?P<secret>[A-Za-z0-9._~+/-]{16,1000}={0,2})`,
			"Bearer (or Token scheme) token in an Authorization header or assignment.",
			[]string{"Authorization: Bearer " + b62(40), `"authorization": "Bearer ` + b62(64) + `"`, "Authorization: Token " + b62(40)},
			[]string{"Authorization: Bearer <token>", "authorization: bearer " + b62(8)}),
		mk("authorization-basic",
			`(?i)\b(?:authorization|proxy-authorization)["']?[ \t]{0,4}[:=][ \t]{0,4}["']?basic[ \t]{1,4}(?P<secret>[A-Za-z0-9+/]{8,1000}={0,2})`,
			"Basic credentials in an Authorization header.",
			[]string{"Authorization: Basic " + "ZmFrZTpub3RyZWFs" + "X2V4YW1wbGU="},
			[]string{"Authorization: Basic <credentials>", "basic auth is configured"}),
		mk("generic-password",
			`(?i)(?:(?:`+passwordNamesEN+`)(?:`+metaName(passwordMeta, passwordMetaCamel)+`|[A-Za-z0-9_.-]{0,16})|`+envPassword+`)(?:`+escQuote+`[ \t]{0,4}`+assign+`[ \t]{0,4}(?:\$?"(?P<secret>[A-Za-z]{0,127}[^A-Za-z"\s][^"\s]{0,127})"|\$?'(?P<secret2>[A-Za-z]{0,127}[^A-Za-z'\s][^'\s]{0,127})'|\\{1,7}"(?P<secret4>[A-Za-z]{0,127}[^A-Za-z"\s\\][^"\s\\]{0,127})\\{1,7}"|`+bracketed+`)|=(?P<secret3>[^\s"'`+"`"+`,;()<>\[\]{}&/$][^\s"'`+"`"+`,;()<>\[\]{}&]{7,127}))`,
			"A quoted value holding a digit or symbol assigned to a password-like name, or an unquoted value of at least 8 bytes in NAME=value form that is not a path or a variable; entropy at least 2.5 bits per byte.",
			[]string{`password = "` + "Fake-Pa55word!" + `"`, "DB_PASSWORD=" + "Fake-Pa55word!", `{"pwd": "` + "Fake-Pa55word!" + `"}`, "PASSWORD=changeme"},
			[]string{`password = "aaaaaaaaaaaa"`, "password := os.Getenv(\"DB_PASSWORD\")", "Enter your password: ", `password = ""`,
				"PASSWORD_FILE=/run/secrets/db_password", `encodeUserPassword: "encodeUserPassword"`, "password=${DB_PASSWORD}",
				"DB_PASSWORD=projects/p/secrets/db-password/versions/3", "password_reset_url=https://example.com/reset?step=1",
				`password = "{{ vault_db_password }}"`, `password: "%DB_PASSWORD%"`, `password_secret = "projects/p/secrets/db-password/versions/3"`}),
		mk("generic-password-words",
			`(?i)(?:`+passwordNames+`)[A-Za-z0-9_.-]{0,16}`+escQuote+`[ \t]{0,4}`+assign+`[ \t]{0,4}(?:"(?P<secret>[A-Za-z]{0,127}[^A-Za-z"\s][^"\s]{0,127})"|'(?P<secret2>[A-Za-z]{0,127}[^A-Za-z'\s][^'\s]{0,127})'|(?P<secret3>[^\s"'#,;(){}\[\]<>|&*!%@$=:`+"`"+`][^\s"',;(){}\[\]<>&`+"`"+`]{3,127})(?:[\s<,;]|$))`,
			"A password named in another language written in Latin letters (contraseña, Passwort, mot de passe, senha, hasło, ...) or spelled apart or with symbols (PASS_WORD, p@ssw0rd, pa$$word), assigned with = : => or a fullwidth colon, quoted or not (red team rtq): a value holding a digit or symbol, entropy at least 2.5 bits per byte, not a template, path, URL, identifier or placeholder.",
			[]string{"PASS_WORD=" + "Fake-Pa55word!", `p@ssw0rd = "` + "Fake-Pa55word!" + `"`, `mot_de_passe="` + "Fake-Pa55word!" + `"`,
				"contraseña: " + "Fake-Pa55word!", "Passwort: " + "Fake-Pa55word!", "mot de passe: " + "Fake-Pa55word!", "senha = " + "Fake-Pa55word!"},
			[]string{`theSlogan = "Just-Do-1t!"`, "theslogan: Just-Do-1t!", "contraseña incorrecta", "Passwort: ********",
				"sifre: ${SIFRE}", "senha = getSenha()", "mot de passe: voir le coffre"}),
		mk("generic-password-scripts",
			`(?i)(?:`+passwordScripts+`)[^\s"'=:：]{0,16}`+escQuote+`[ \t]{0,4}`+assign+`[ \t]{0,4}(?:"(?P<secret>[A-Za-z]{0,127}[^A-Za-z"\s][^"\s]{0,127})"|'(?P<secret2>[A-Za-z]{0,127}[^A-Za-z'\s][^'\s]{0,127})'|(?P<secret3>[^\s"'#,;(){}\[\]<>|&*!%@$=:`+"`"+`][^\s"',;(){}\[\]<>&`+"`"+`]{3,127})(?:[\s<,;]|$))`,
			"A password named in a script other than Latin (пароль, 密码, 数据库密码, パスワード, 비밀번호), assigned with = : => or a fullwidth colon, quoted or not (red team rtq): a value holding a digit or symbol, entropy at least 2.5 bits per byte, not a template, path, URL, identifier or placeholder.",
			[]string{"пароль=" + "Fake-Pa55word!", "パスワード: " + "Fake-Pa55word!", "数据库密码：" + "Fake-Pa55word!", `{"비밀번호": "` + "Fake-Pa55word!" + `"}`},
			[]string{"пароль изменён: 2026-11-24T10:00:00Z", "密码已更新：2026-11-24", "パスワード: ********"}),
		mk("generic-secret-words",
			`(?i)(?:`+secretNamesIntl+`)[A-Za-z0-9_.-]{0,16}`+escQuote+`[ \t]{0,4}`+assign+`[ \t]{0,4}(?:"(?P<secret>[^"\s]{16,255})"|'(?P<secret2>[^'\s]{16,255})'|(?P<secret3>`+unquotedValue+`))`,
			"A token or secret named in another language (jeton, токен, секрет, 令牌, 秘密, 密钥, 토큰, トークン), assigned with = : => or a fullwidth colon, quoted or not (red team rtq): at least 16 characters, entropy at least 3.5 bits per byte, not a template, path, URL, resource name or identifier.",
			[]string{"токен: " + b62(32), "访问令牌：" + b62(32), "jeton=" + b62(32), `{"секрет": "` + b62(32) + `"}`},
			[]string{"jetonCount=12", "токен: ${TOKEN}", "令牌：" + fill("ab", 32), "jeton: mon-jeton-de-test-v2"}),
		mk("generic-secret",
			`(?i)(?:`+genericSecretNames+`)(?:`+metaName(secretMeta, secretMetaCamel)+`|[A-Za-z0-9_.-]{0,16})`+secretTail,
			"A value holding a digit or symbol assigned to an api_key, secret or token-like name; entropy at least 3.5 bits per byte.",
			[]string{`api_key: "` + b62(32) + `"`, "CLIENT_SECRET=" + b62(40), `secret = '` + b62(24) + `'`},
			[]string{`api_key: "` + fill("ab", 32) + `"`, `secret = "short"`, "the secret is out", `access_token: "xxxxxxxxxxxxxxxxxxxxxxxx"`,
				`apiKeyHeader: "encodeQueryComponentWithHeader"`, "SECRET_FILE=/run/secrets/signing_key", `client_secret: "${OAUTH_CLIENT_SECRET}"`,
				"secret_name=projects/p/secrets/api-key/versions/latest", `api_token_url = "https://auth.example.com/oauth2/token"`, `secret: "{{ .Values.secret }}"`}),
		mk("generic-secret-unquoted",
			`(?:(?i:`+secretNames+`)(?:`+metaName(secretMeta, secretMetaCamel)+`|[A-Za-z0-9_.-]{0,16})(?:[ \t]{0,4}:[ \t]{1,4}|=)|(?:token|Token|TOKEN)[:=][ \t]{0,4})(?:[\[({<] ?|\$['"])?(?P<secret>`+unquotedValue+`)`,
			"An unquoted value of at least 16 characters after an api_key, secret or token-like name and a colon or an equals sign: YAML and properties files, HTTP headers (X-Api-Key: ..., as curl -v prints them), query strings, command-line flags (--token=...); entropy at least 3.5 bits per byte, not a template, path, URL, resource name or identifier.",
			[]string{"client_secret: " + b62(32), "> X-Api-Key: " + b62(24), "x-auth-token: " + b62(40), "  refreshToken: " + b62(48),
				"cli --token=" + b62(32), "GET /hook?token=" + b62(32) + "&x=1", "api_key: " + b62(40) + "=="},
			[]string{"token: ${{ secrets.GITHUB_TOKEN }}", "api_key: YOUR_API_KEY_HERE", "tokenizer: bert-base-uncased", "access_token: null", "secret: false",
				"secret_name: projects/p/secrets/api-key/versions/latest", "token_url: https://auth.example.com/oauth2/token", "api_key: " + fill("ab", 32),
				"the token is stored in the keychain", "secretKeyRef: db-credentials-password", "tokens: 4096", "token=${{ github.token }}", "maxTokenSize: MaxScanTokenSize,",
				"    secretName: wildcard-example-com-tls-2", "secretName: db-credentials-v2", "apiKeyHeader: X-Api-Key-Version-2",
				"client_secret_name: projects_prod_oauth_client_v2", "SecretsManagerSecretId: Prod/Database/Credentials", "session_token_ttl=86400s-sliding-window"}),
		mk("generic-secret-flag",
			`--(?:`+secretNames+`|token)(?:[_.-][A-Za-z0-9_.-]{0,15})?[ \t]{1,4}(?P<secret>`+unquotedValue+`)`,
			"A command-line flag named like an api_key, secret or token, and its value after a space (ps output, shell history): at least 16 characters, entropy at least 3.5 bits per byte, not a template, path, URL, resource name or identifier.",
			[]string{"deploy --api-key " + b62(32), "./sync --client-secret " + b62(40) + " --region eu-west-1"},
			[]string{"--token $GITHUB_TOKEN", "--api-key " + fill("ab", 32), "--secret-file /run/secrets/signing_key", "--token-ttl 3600",
				"vllm serve --tokenizer mistralai/Mistral-7B-Instruct-v0.2", "--tokens-per-batch " + b62(20), "--secret-scanning Disabled-For-Tests", "--secret-name my-app/prod/DbPassword"}),
	}
	for i := range rules {
		switch rules[i].Name {
		case "generic-secret-unquoted", "generic-secret-flag", "generic-secret-words":
			rules[i].MinEntropy = 3.5
			// Words (lower, Capitalized or CamelCase, with a short number)
			// and numbers joined by -, _ or / are names: Kubernetes object
			// names (secretName: db-credentials-v2), header names, settings
			// (Enabled-After-30-Days, 86400s-sliding-window), secret
			// manager paths (Prod/Database/Credentials).
			rules[i].Exclude = notSecret + `|^` + nameWord + `(?:[-_/]` + nameWord + `)+$|^[A-Za-z]+$`
		case "generic-password", "generic-password-words", "generic-password-scripts":
			rules[i].MinEntropy = 2.5
			rules[i].Exclude = notSecret
		case "generic-secret":
			rules[i].MinEntropy = 3.5
			// Words joined by - _ or / are names here too
			// (secretName: "db-credentials-v2", red team rtm).
			rules[i].Exclude = notSecret + `|^` + nameWord + `(?:[-_/]` + nameWord + `)+$`
		case "database-url", "url-credentials":
			rules[i].Exclude = templateOnly
		}
	}
	return rules
}

// genericKeyRules are a password in a JSON member named pw or pass, and
// the generic rule for private, signing, encryption and master keys by
// name, last in the pack: a key whose encoding a rule
// knows (PRIVATE_KEY=MIIEvQ..., private-key-base64) is found by both over
// the same bytes, and a tie goes to the rule that comes first.
func genericKeyRules() []Rule {
	b62 := func(n int) string { return fill(fakeAlnum, n) }
	rules := []Rule{
		mk("json-password-member",
			// pw" and pass" (or with the quote escaped) are the literals
			// the scanner looks for: "pass" and "pw" alone are in words
			// (bypass, compass) and code everywhere.
			`"(?:[A-Za-z0-9]{1,16}[_-])?(?i:pw|pass)(?:"|\\")[ \t]{0,4}:[ \t]{0,4}\\?"(?P<secret>[A-Za-z]{0,127}[^A-Za-z"\s\\][^"\s\\]{0,127})\\?"`,
			"A password in a JSON member named pw or pass, alone or after a word and _ or - (\"pw\", \"db_pass\", with escaped quotes too): a value holding a digit or symbol, entropy at least 2.5 bits per byte, not a template or placeholder.",
			[]string{`{"user": "app", "pw": "` + "Fake-Pa55word!" + `"}`, `{"db_pass":"` + "Fake-Pa55word!" + `"}`, `{\"pass\": \"` + "Fake-Pa55word!" + `\"}`},
			[]string{`{"pass": 12, "fail": 0}`, `{"pass": "3/5"}`, `{"bypass": "cache-v2"}`, `{"pw": "${DB_PASSWORD}"}`, `if x == "pass": return`}),
		mk("password-attribute-short",
			// pass=" and pw=" are the literals: an XML attribute or a
			// quoted assignment (<db pass="..."/>); "pass" alone is in
			// words and code everywhere (red team rtd).
			`(?:^|[^A-Za-z0-9_.-])(?:[A-Za-z0-9]{1,16}[_-])?(?i:pass|pw)=(?:"(?P<secret>[A-Za-z]{0,127}[^A-Za-z"\s][^"\s]{0,127})"|'(?P<secret2>[A-Za-z]{0,127}[^A-Za-z'\s][^'\s]{0,127})')`,
			"A password in an XML attribute or quoted assignment named pass or pw, alone or after a word and _ or - (<db pass=\"...\"/>, db_pw='...'): a value holding a digit or symbol, entropy at least 2.5 bits per byte, not a template or placeholder.",
			[]string{`<db host="db.internal" pass="` + "Fake-Pa55word!" + `"/>`, `<login user="app" db_pw='` + "Fake-Pa55word!" + `'/>`},
			[]string{`<testsuite tests="12" pass="12" fail="0">`, `<run pass="3/5"/>`, `bypass="cache-v2"`, `<db pass="${DB_PASS}"/>`, `if pass == "x" {`, `compass="N-45"`}),
		mk("generic-secret-key",
			`(?i)(?:private|signing|encryption|master)[_-]?key(?:s|[_-]?(?:value|b64|base64|hex|data|pem|str|string))?`+secretTail,
			"A value holding a digit or symbol assigned to a private, signing, encryption or master key's name (not its _id, _path or _ref); entropy at least 3.5 bits per byte.",
			[]string{`{"private_key": "` + b62(32) + `"}`, "ENCRYPTION_KEY=" + b62(40), `signingKey: '` + b62(32) + `'`},
			[]string{`{"private_key_id": "0123456789abcdef"}`, `{"signing_key_path": "/etc/keys/signing.pem"}`, "masterKeyRef: db-credentials-v2", `encryption_key = "${ENCRYPTION_KEY}"`}),
	}
	rules[0].MinEntropy = 2.5
	rules[0].Exclude = notSecret
	rules[1].MinEntropy = 2.5
	rules[1].Exclude = notSecret
	rules[2].MinEntropy = 3.5
	rules[2].Exclude = notSecret + `|^` + nameWord + `(?:[-_/]` + nameWord + `)+$`
	return rules
}
