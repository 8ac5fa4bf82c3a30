package dlp

// Credentials in the shapes HTTP clients, API responses and command lines
// print them: Authorization headers of any scheme, api keys written as
// "apikey VALUE", token members of JSON objects (an STS response's
// SessionToken), a token as the user of a URL, and passwords on command
// lines.

// tokenMember is the name of a JSON member that holds a credential token:
// "token" alone or after one of these words. Pagination and other
// non-credential tokens (NextToken, page_token, continuation_token) are
// not in the list.
const tokenMember = `(?i:(?:x[_-])?(?:access|auth|api|bearer|session|security|refresh|id|identity|private|secret|registry|oauth|personal[_-]?access|csrf|xsrf|sts)?[_-]?token)`

// nameLike is the Exclude of the rules that take any run of a token
// alphabet: templates, paths, URLs, resource names, identifiers,
// placeholder words, and words joined by - _ or / (header names, object
// names, settings), as generic-secret-unquoted excludes them.
const nameLike = notSecret + `|^` + nameWord + `(?:[-_/]` + nameWord + `)*$|^[A-Za-z]+$`

// cliValue is a password on a command line: quoted, or a run of non-space
// bytes that does not start an option.
const cliValue = `(?:'(?P<secret2>[^'\s]{3,128})'|"(?P<secret3>[^"\s]{3,128})"|(?P<secret>[^\s"'|;&<>-][^\s"'|;&<>]{2,127}))`

func headerRules() []Rule {
	b62 := func(n int) string { return fill(fakeAlnum, n) }
	rules := []Rule{
		mk("authorization-scheme",
			`(?i)\b(?:authorization|proxy-authorization)["']?[ \t]{0,4}[:=][ \t]{0,4}["']?[A-Za-z][A-Za-z0-9_-]{1,31}(?:[ \t]{1,4}|%20|\+)(?:(?:token|key|apikey|api_key|access_token)=["']?)?(?P<secret>[A-Za-z0-9._~+/-]{16,1000}={0,2})(?:[^A-Za-z0-9._~+/=-]|$)`,
			"Credential in an Authorization header of any scheme (ApiKey, Api-Key, SSWS, Key, OAuth, Bot, DeepL-Auth-Key, Token token=\"...\"), as curl -v and HTTP request dumps print it: at least 16 characters, entropy at least 3.5 bits per byte; Digest and AWS Signature V4 parameters are not taken.",
			[]string{"Authorization: ApiKey " + b62(32), "> Authorization: SSWS " + b62(40), `-H "Authorization: Api-Key ` + b62(32) + `"`,
				`Authorization: Token token="` + b62(32) + `"`, "authorization=Bearer%20" + b62(32)},
			[]string{"Authorization: ApiKey <your-api-key>", "Authorization: ApiKey YOUR_API_KEY_HERE", `Authorization: Digest username="u", realm="r", nonce="0123456789abcdef0123"`,
				"Authorization: AWS4-HMAC-SHA256 Credential=EXAMPLE/20261124/us-east-1/s3/aws4_request, SignedHeaders=host", "Authorization: Key " + fill("ab", 32)}),
		mk("api-key-spaced",
			`(?i:\b(?:x-)?api[_-]?key)(?:[ \t]{1,4}|\+)(?P<secret>`+unquotedValue+`)`,
			"An api key after its name and a space (apikey VALUE, ApiKey VALUE, set api_key VALUE): at least 16 characters, entropy at least 3.5 bits per byte, not a template, path, identifier or placeholder.",
			[]string{"apikey " + b62(32), "set api_key " + b62(32) + ";", "ApiKey " + b62(40)},
			[]string{"apikey ${API_KEY}", "api_key YOUR_API_KEY_HERE", "apiKey string", "apiKey apiKeyFromEnvironment2", "api key " + b62(32), "ApiKey " + fill("ab", 32)}),
		mk("json-token-member",
			k8sQ+tokenMember+`(?:"|\\")[ \t]{0,4}:[ \t]{0,4}`+k8sQ+`(?P<secret>[A-Za-z0-9_.~+/%=-]{16,1000})`+k8sQ,
			"A JSON member named token, or access/auth/session/refresh/id/identity/security/... token, holding a string of at least 16 token characters (an STS SessionToken, an OAuth refresh_token, docker's identitytoken): entropy at least 3.5 bits per byte, not a template or placeholder.",
			[]string{`{"SessionToken": "` + fill(fakeB64, 300) + `"}`, `{"bearer_token":"` + b62(40) + `","token_type":"Bearer"}`, `{"token": "` + b62(32) + `"}`,
				`{"identitytoken":"` + b62(32) + `"}`},
			[]string{`{"NextToken": "` + b62(40) + `"}`, `{"page_token": "` + b62(40) + `"}`, `{"token": "YOUR_TOKEN_HERE"}`, `{"token": "<token>"}`, `{"token_type": "` + b62(32) + `"}`,
				`{"refresh_token": "${REFRESH_TOKEN}"}`}),
		mk("url-token-userinfo",
			`\b(?i:https?|git|ssh|wss?)://(?P<secret>[A-Za-z0-9_-]{20,255})@[A-Za-z0-9.\[-]`,
			"A token as the whole user part of a URL (https://TOKEN@github.com/org/repo.git, as git credential helpers and CI clones write it): at least 20 characters, entropy at least 3.5 bits per byte.",
			[]string{"git clone https://" + b62(40) + "@github.com/org/repo.git"},
			[]string{"ssh://git@github.com/org/repo.git", "https://deploy-bot-for-production@git.example.com/x.git", "https://" + fill("ab", 32) + "@example.com"}),
		mk("cli-password-flag",
			`--(?:password|passwd|pass|db-password|admin-password)[ \t]{1,4}`+cliValue,
			"Password after a --password flag and a space on a command line (ps output, shell history, CI logs); not a template, path, placeholder or a word of letters only.",
			[]string{"mysql -h db -u root --password " + "Fake-Pa55word!" + " app", "./migrate --db-password '" + "Fake-Pa55word!" + "'"},
			[]string{"echo x | docker login --password-stdin", "--password $DB_PASSWORD", "--password-file /run/secrets/db", "--password <password>", "--password prompt"}),
		mk("cli-password-short",
			`(?:\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb)[ \t](?:[^\n|;&]{0,200}?[ \t])?-p|\bsshpass[ \t]{1,4}-p[ \t]{0,4}|\b(?:docker|podman|nerdctl|buildah|skopeo|helm|oras)(?:[ \t]{1,4}[a-z]{1,16})?[ \t]{1,4}login[ \t](?:[^\n|;&]{0,200}?[ \t])?-p[ \t]{1,4})`+cliValue,
			"Password given with -p on a command line: mysql -pVALUE, sshpass -p VALUE, docker (podman, helm registry) login -p VALUE; not a template, path, placeholder or a word of letters only.",
			[]string{"mysql -u root -p" + "Fake-Pa55word!" + " app", "docker login -u me -p " + b62(20) + " ghcr.io", "helm registry login -u me -p " + b62(20) + " ghcr.io",
				"sshpass -p '" + "Fake-Pa55word!" + "' ssh root@h"},
			[]string{"mysql -u root -p app", "docker run -p 8080:80 img", "mysql -u root -p${MYSQL_PWD}", "docker login -u me --password-stdin ghcr.io"}),
		mk("cli-basic-credentials",
			`\b(?:curl|http|https|xh)(?:[ \t][^\n|;&]{0,400}?)?[ \t](?:-u|--user|--proxy-user|-a|--auth)[ \t]{0,4}["']?[^:\s"']{1,64}:(?P<secret>[^\s"']{3,128})`,
			"user:password given to curl -u (or --user, --proxy-user), or HTTPie or xh -a (--auth), on a command line; not a template.",
			[]string{"curl -u admin:" + "Fake-Pa55word!" + " https://api.example.com/", "curl -s --user 'apikey:" + b62(32) + "' https://api.example.com/v1"},
			[]string{"curl -u admin https://api.example.com/", "curl -u admin:${ADMIN_PASSWORD} https://x", "curl -u \"$USER:$PASS\" https://x",
				"http -a admin https://x", "wget -U Mozilla/5.0:" + b62(20) + " https://x"}),
	}
	for i := range rules {
		switch rules[i].Name {
		case "cli-password-flag", "cli-password-short":
			rules[i].MinEntropy = 2.5
			rules[i].Exclude = notSecret + `|^[A-Za-z]+$`
		case "cli-basic-credentials":
			rules[i].MinEntropy = 2.5
			rules[i].Exclude = templateOnly
		default:
			rules[i].MinEntropy = 3.5
			rules[i].Exclude = nameLike
		}
	}
	return rules
}
