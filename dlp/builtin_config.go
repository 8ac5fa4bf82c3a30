package dlp

// Credentials in configuration formats: .netrc, .pgpass, docker
// config.json, PuTTY .ppk, Kubernetes Secret manifests and kubeconfig,
// connection strings, session cookies, unquoted YAML passwords, htpasswd.

// k8sEntries matches the entries of a Kubernetes Secret's YAML data block.
// k8sQ is a quote in a Kubernetes object's JSON, escaped or not: the
// kubectl.kubernetes.io/last-applied-configuration annotation of every
// object made by kubectl apply holds the object again as a JSON string
// ({\"data\":{\"password\":...}), in kubectl get -o json and in the YAML
// of a JSON tool result alike.
const k8sQ = `\\{0,7}"`

// k8sSameDoc is a line between a Secret's kind and its data in the same
// YAML document: not a document separator (---) or the start of the next
// item of a top-level list ("- apiVersion: v1"), so a Secret without data
// does not reach into the next document's ConfigMap.
const k8sSameDoc = `(?:(?:[^-\n][^\n]*|-[^-\s][^\n]*)?\n)`

// k8sSameItem is a line between a data block and the kind after it in the
// same object as kubectl prints it (immutable: true): not a list item or a
// document separator at any indentation, so in kubectl get
// configmap,secret -o yaml a ConfigMap's data is not taken for the next
// item's Secret, and the match does not swallow that Secret's own data.
const k8sSameItem = `(?:[ \t\r]*(?:[^-\s][^\n]*)?\n)`

// k8sMetadata is the Exclude of the rules that start at a "data:" key:
// entries of an object's metadata ("metadata:" ends in "data:").
// k8sDataFirst starts at a word's start (\bdata) too: its match from
// "metadata:" ran on to the kind line after the data block that followed
// (metadata, data, kind: Secret), the Exclude dropped it, and the data
// block inside it was never read: its values went out (red team rud).
const k8sMetadata = `^[ \t]+(?:name|namespace|labels|annotations|uid|resourceVersion|creationTimestamp|generation|managedFields|ownerReferences|finalizers|generateName|selfLink|deletionTimestamp):`

const k8sEntries = `(?:(?:` + k8sForeign + `\n)*` + k8sEntryKey + `[ \t]{0,4}[^\n]*(?:\r?\n|$))+`

// k8sEntryKey is the key of an entry of a data block, with its colon:
// quoted or not ('password': as PyYAML and ruamel write it with a quoting
// style), a blank before the colon or not (red team rud).
const k8sEntryKey = `[ \t]{1,16}["']?[A-Za-z0-9._-]{1,253}["']?[ \t]{0,4}:`

// k8sKeyEnd is the end of the key "data", "stringData" or "kind" written
// as YAML allows it (red team rud: each of these spellings let a Secret's
// values through): the key's closing quote ('data':, "kind":), blanks
// before its colon (data :), and an explicit key's value indicator on the
// next line ("? data" then ":").
const k8sKeyEnd = `["']?[ \t]{0,4}(?:\r?\n[ \t?-]{0,16})?:`

// k8sDataKey is a data or stringData key at a line's start, as k8sKeyEnd
// reads its end: a list item's dash, an explicit key's "?" and the key's
// opening quote may come before it.
const k8sDataKey = `[ \t?-]{0,16}["']?(?:data|stringData)` + k8sKeyEnd

// k8sSecretKind is the key "kind" (from its word on: a quote before it is
// not read) and the value Secret, quoted or not, after a tag or an anchor
// (kind: !!str Secret, 'kind': 'Secret') (red team rud).
const k8sSecretKind = `kind` + k8sKeyEnd + `[ \t]{0,4}(?:[&!][^\s#]{1,64}[ \t]{1,4})?["']?Secret`

// k8sBlock matches the lines of a Secret's YAML data block as people and
// templates write it, not only as kubectl prints it: every indented line
// is the block's (a quoted key, "key : value", a value on the next line,
// a multi-line block scalar's body: "config.yaml: |" and the file under
// it), and blank lines and comments between them do not end it (helm
// template leaves a blank line where an {{ if }} was); the first line that
// is not indented, or the next object of a list ("  - kind: ConfigMap"),
// does. It takes the blank lines and comments after its last line, so
// that a stream cut there still has the block open at its end (red team
// rtw: the entries after a blank line, a comment or a block scalar's first
// line went out in the clear).
const k8sBlock = k8sSepF + `*` + k8sLine + `(?:\n` + k8sSepF + `*` + k8sLine + `)*(?:\n` + k8sSep + `*|$)`

// k8sForeign is a line of a command's stderr at column 0 (without its
// line break) that a tool's output may carry between two lines of a
// manifest it streams: a klog header (W1124 22:33:44.123456 ...), a date
// or a time, a log level (Warning: ..., error: ..., [WARNING], INFO ...) or
// logfmt (level=, time="). Such a line between two entries of a data block,
// or before its first, does not end it (red team rtp: the entries after it
// went out in the clear); after its last, it is not the block's. No field
// of a Secret has such a name, and a document marker, a list item, a key
// of the object (type: Opaque) and prose do end the block.
const k8sForeign = `(?:[IWEF][0-9]{4}[ \t]|[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{2}:[0-9]{2}:[0-9]{2}|\[?(?i:warning|error|warn|info|debug|fatal)[: \t\]]|level=|time=")[^\n]*`

// k8sSepF is a k8sSep or a k8sForeign line.
const k8sSepF = `(?:` + k8sSep + `|` + k8sForeign + `\n)`

// k8sLine is a line of a data block: indented, not a comment, not the
// start of the next object in a list ("- apiVersion: v1", "- kind:
// ConfigMap"; a list in a block scalar's file is the block's); k8sSep is a
// blank line or a comment.
const (
	k8sLine = `[ \t]{1,16}(?:[^\s#-]|-[^\s]|-[ \t]{1,8}(?:[^\sak]|a[^p\s]|k[^i\s]))[^\n]*`
	k8sSep  = `(?:[ \t\r]*\n|[ \t]{0,16}#[^\n]*\n)`
)

// k8sBlockKey is the rest of the line of a Secret's data or stringData
// key: an anchor or a tag ("data: &creds", "data: !!map") and a comment
// may follow it.
const k8sBlockKey = `[ \t]{0,4}(?:[&!][^\s#]{1,64}[ \t]{0,4})?(?:#[^\n]*)?\r?\n`

// k8sFlow matches the entries of a data block written in YAML's flow
// style, on one line or over several: "data: {password: cGFzcw==}".
const k8sFlow = `[ \t]{0,4}(?:[&!][^\s#]{1,64}[ \t]{0,4})?\{(?P<secret2>[^{}]*)(?:\}|$)`

// The regexes of the rules that read a Secret's YAML data block. Each is
// also run by a line reader of its own (k8snative.go), which finds exactly
// what the regex finds, in a pass over the lines instead of on the regexp
// package's NFA.
const (
	k8sKindFirst  = k8sSecretKind + `["']?[ \t]{0,4}(?:#[^\n]*)?\r?\n` + k8sSameDoc + `{0,16}?` + k8sDataKey + `(?:` + k8sBlockKey + `(?P<secret>` + k8sBlock + `)|` + k8sFlow + `)`
	k8sStringData = `stringData` + k8sKeyEnd + `(?:` + k8sBlockKey + `(?P<secret>` + k8sBlock + `)|` + k8sFlow + `)`
	k8sDataFirst  = `\bdata` + k8sKeyEnd + `[ \t]{0,4}\r?\n(?P<secret>` + k8sEntries + `)` + k8sSameItem + `{0,8}?[ \t?-]{0,16}["']?` + k8sSecretKind + `\b`
	// k8sDataBase64 is the regex of kubernetes-data-base64 (also run by a
	// line reader of its own, k8snative.go); a value may be quoted.
	k8sDataBase64 = `data` + k8sKeyEnd + `\r?\n(?P<secret>(?:(?:` + k8sForeign + `\n)*` + k8sEntryKey + `[ \t]{0,4}["']?` + b64Quanta + `["']?[ \t]*(?:\r?\n|$))+)`
)

// notSecret is the Exclude of the generic rules: what a value that holds no
// secret looks like. Templates and references (${VAR}, $(cmd), {{ var }},
// $VAR, %VAR%, #{var}, <placeholder>), URLs, paths, "/"-separated resource
// names in lower case (projects/p/secrets/db-password/versions/3), dotted
// and snake_case identifiers (cfg.Password, user_password), placeholder
// words, timestamps (passwordLastChanged: 2024-11-24T13:00:00Z) and AWS
// ARNs (SecretArn: arn:aws:secretsmanager:...), which name a secret.
const notSecret = `^(?:\$\{|\$\(|\{\{|\{%|\$[A-Za-z_]|%[A-Za-z_][A-Za-z0-9_]*%|#\{|<[^>]*>$|[A-Za-z][A-Za-z0-9+.-]*://|/|~/|\.\.?/)` +
	`|^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,9})?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?$|^arn:aws[a-z-]{0,16}:[a-z0-9-]{1,64}:` +
	`|^(?:[a-z0-9_.-]+/)+[a-z0-9_.-]*$` +
	`|^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?$` +
	`|^[A-Za-z]+(?:_[A-Za-z]+)+$` +
	`|^[(\[{<][A-Za-z]+(?:[ _-][A-Za-z]+)*[)\]}>]$` + // (hidden), [masked], {not-set}: a word in brackets (red team rtd)
	`|^REDACTED:[a-z0-9-]+$|(?i:^(?:x+|\*+|\.{3}|pass(?:word|wd)?|pwd|secret|none|null|nil|true|false|required|optional|string|undefined|empty|hidden|redacted|masked|your[A-Za-z_-]*|example|sample|placeholder|todo|tbd|foo|bar|baz|test)$)`

// templateOnly is the Exclude of URL password rules: a template or
// placeholder in the password position is no password.
const templateOnly = `^(?:\$\{|\$\(|\{\{|\$[A-Za-z_]|%[A-Za-z_][A-Za-z0-9_]*%|%24%7B|#\{|<[^>]*>$|\*+$|x+$|X+$|\.\.\.$)`

func configRules() []Rule {
	b62 := func(n int) string { return fill(fakeAlnum, n) }
	b64 := func(n int) string { return fill(fakeB64, n) }
	rules := []Rule{
		mk("netrc-password",
			`(?i)\b(?:machine[ \t\r\n]{1,16}(?:[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}|localhost)(?:[ \t\r\n]{1,16}(?:login|account)[ \t\r\n]{1,16}[^\s]{1,128}){0,2}|(?:machine[ \t\r\n]{1,16}[A-Za-z0-9_.:-]{1,253}|default(?:[ \t]|\r?\n))(?:[ \t\r\n]{0,16}(?:login|account)[ \t\r\n]{1,16}[^\s]{1,128}){1,2})[ \t\r\n]{1,16}(?:password|passwd)[ \t\r\n]{1,16}(?P<secret>[^\s]{3,256})`,
			".netrc entry: the password of a machine line (a host with dots, or any host followed by a login) or of the default line, on one line or over several.",
			[]string{"machine api.example.com login me password " + b62(20), "machine git.example.org\n  login bot\n  password " + b62(40) + "\n",
				"machine gitea login bot password " + b62(20), "default login anonymous password " + b62(20)},
			[]string{"machine learning password reset", "machine api.example.com login me", "machine api.example.com login me password ${NETRC_PW}",
				"machine gitea password " + b62(20), "the default password is stored elsewhere"}),
		mk("pgpass-entry",
			`(?m)(?:^|[\s"'=>])[A-Za-z0-9_.*-]{1,253}:(?:543[0-9]|6432|\*):[A-Za-z0-9_.*-]{1,63}:[A-Za-z0-9_.*@-]{1,63}:(?P<secret>[^:\s"'<]{3,256})(?:[\s"'<]|$)`,
			"PostgreSQL .pgpass line hostname:port:database:username:password.",
			[]string{"db.example.internal:5432:app:app:" + b62(16), "*:*:*:postgres:" + "Fake-Pa55word"},
			[]string{"db.example.internal:5432:app:app", "12:30:45:67", "db:1234:app:app:" + b62(16), "db.example.internal:5432:app:app:${PGPASSWORD}"}),
		mk("docker-config-auth",
			`"auth"[ \t]{0,4}:[ \t]{0,4}"(?P<secret>[A-Za-z0-9+/]{12,1000}={0,2})"`,
			"auth field of a docker config.json (base64 of user:password).",
			[]string{`{"auths": {"registry.example.com": {"auth": "` + "ZmFrZXVzZXI6RmFrZS1QYTU1d29yZA==" + `"}}}`},
			[]string{`"auth": "required"`, `"auth": ""`, `"authority": "` + b64(20) + `"`}),
		mk("putty-private-key",
			`Private-Lines:[ \t]{0,4}[0-9]{1,3}(?:\r?\n|\\r\\n|\\n)(?P<secret>(?:[ \t]{0,8}[A-Za-z0-9+/=]+(?:\r?\n|\\r\\n|\\n)?){1,64})`,
			"PuTTY .ppk private key file: the Private-Lines block (an RSA 8192 key has 55 lines), also inside a JSON string (\\n escaped).",
			[]string{"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: fake\nPublic-Lines: 2\n" + b64(64) + "\n" + b64(20) + "\nPrivate-Lines: 1\n" + b64(44) + "\nPrivate-MAC: " + fill(fakeHex, 64) + "\n"},
			[]string{"PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 2\n" + b64(64) + "\n", "Private-Lines: none"}),
		mk("kubernetes-secret-data",
			// The lines of a data block (k8sBlock), any number, values of
			// any length (a TLS key is kilobytes of base64), or its flow
			// form (k8sFlow).
			k8sKindFirst,
			"data and stringData values of a Kubernetes Secret manifest written kind first, in YAML (every entry, any length; blank lines, comments, quoted keys, multi-line values and the flow style too).",
			[]string{"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: " + "RmFrZS1QYTU1d29yZA==" + "\n  user: YXBw\n",
				"kind: Secret\nstringData:\n  token: " + b64(40) + "\n",
				"kind: Secret\ndata: # base64\n  user: YXBw\n\n  # rotated\n  \"password\": " + "RmFrZS1QYTU1d29yZA==" + "\n",
				"kind: Secret\ndata: {password: " + "RmFrZS1QYTU1d29yZA==" + "}\n"},
			[]string{"apiVersion: v1\nkind: ConfigMap\ndata:\n  level: info\n", "kind: Secret\nmetadata:\n  name: x\n"}),
		mk("kubernetes-secret-stringdata",
			// stringData is a Secret's field only (no other kind of the
			// core API has it): its block is a Secret's data whatever comes
			// before or after it, a kind after it or in a message sent long
			// before (red team rts). Starts with its literal, as the rules
			// around it do.
			k8sStringData,
			"stringData values of a Kubernetes Secret manifest in YAML, with or without its kind in view (every entry, any length, as kubernetes-secret-data reads them).",
			[]string{"apiVersion: v1\nstringData:\n  password: hunter2-but-longer\n  user: app\nkind: Secret\n",
				"- stringData:\n    token: " + b64(40) + "\n", "stringData:\n  config.yaml: |\n    token " + b64(40) + "\n"},
			[]string{"apiVersion: v1\nkind: ConfigMap\ndata:\n  level: info\n", "stringData: {}\n", "stringData:\nkind: Secret\n"}),
		mk("kubernetes-secret-json",
			// Each Kubernetes rule starts with one literal ("kind:", "\"kind\"",
			// "data:", "\"data\""), which Go's regexp skips to: their
			// matches have no bounded length, so they run over the text from
			// the first hit on. Here the gap between kind and data stays
			// inside the Secret's object (nested two deep: metadata.labels).
			`"kind`+k8sQ+`[ \t\r\n]{0,16}:[ \t\r\n]{0,16}`+k8sQ+`Secret`+k8sQ+`(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*?`+k8sQ+`(?:data|stringData)`+k8sQ+`[ \t\r\n]{0,16}:[ \t\r\n]{0,16}\{(?P<secret>[^{}]*)\}`,
			"data and stringData values of a Kubernetes Secret in JSON written kind first (client-go's encoding).",
			[]string{`{"kind": "Secret", "metadata": {"name": "db", "labels": {"a": "b"}}, "data": {"creds": "` + b64(28) + `"}}`,
				`{"kind":"Secret","apiVersion":"v1","metadata":{"name":"db"},"data":{"creds":"` + b64(28) + `"}}`},
			[]string{`{"kind":"ConfigMap","data":{"level":"info"}}`, `{"kind":"Secret","metadata":{"name":"x"}}`}),
		mk("kubernetes-secret-data-listed",
			// kubectl prints fields in alphabetical order, so data comes
			// before kind in its YAML. The regex starts with the literal
			// "data:", which Go's regexp skips to, so that the scan over the
			// whole text (the match starts before the kind that makes it a
			// Secret, at any distance) stays fast; "metadata:" is told apart
			// by its entries (Exclude).
			k8sDataFirst,
			"data values of a Kubernetes Secret as kubectl -o yaml prints it, data before kind (lists too), every entry, any length.",
			[]string{"apiVersion: v1\ndata:\n  creds: " + b64(28) + "\nkind: Secret\nmetadata:\n  name: db\n",
				"items:\n- apiVersion: v1\n  data:\n    creds: " + b64(28) + "\n  kind: Secret\n"},
			[]string{"apiVersion: v1\ndata:\n  level: info\nkind: ConfigMap\n", "metadata:\n  name: x\nkind: Secret\n",
				"metadata:\n  labels:\n    app: x\nkind: Secret\n"}),
		mk("kubernetes-secret-json-listed",
			`"data`+k8sQ+`[ \t\r\n]{0,16}:[ \t\r\n]{0,16}\{(?P<secret>[^{}]*)\}[^{}]{0,200}?`+k8sQ+`kind`+k8sQ+`[ \t\r\n]{0,16}:[ \t\r\n]{0,16}`+k8sQ+`Secret`+k8sQ,
			"data values of a Kubernetes Secret as kubectl -o json prints it, data before kind.",
			[]string{`{"apiVersion":"v1","data":{"creds":"` + b64(28) + `"},"kind":"Secret","metadata":{"name":"db"}}`,
				"{\n    \"apiVersion\": \"v1\",\n    \"data\": {\n        \"creds\": \"" + b64(28) + "\"\n    },\n    \"kind\": \"Secret\"\n}"},
			[]string{`{"apiVersion":"v1","data":{"level":"info"},"kind":"ConfigMap"}`, `{"metadata":{"name":"x"},"kind":"Secret"}`,
				`"{\"apiVersion\":\"v1\",\"data\":{\"level\":\"info\"},\"kind\":\"ConfigMap\"}"`}),
		mk("kubeconfig-client-key",
			`(?:client-key-data|client-key):[ \t]{0,4}(?P<secret>[A-Za-z0-9+/]{60,1000}={0,2})`,
			"Client private key (base64 PEM) in a kubeconfig.",
			[]string{"users:\n- name: admin\n  user:\n    client-key-data: " + b64(120) + "\n"},
			[]string{"client-key-data: " + b64(20), "client-certificate-data: " + b64(120)}),
		mk("connection-string-password",
			`(?i)[;?&](?:password|pwd|passwd|passphrase|pw|pass|`+passwordNames+`)=(?P<secret>[^;&\s"'{}]{4,128})(?:[;&\s"']|$)`,
			"Password in an ADO.NET, ODBC or JDBC connection string (Server=...;Password=...;).",
			[]string{"Server=tcp:db.example.net,1433;Database=app;User ID=app;Password=" + "Fake-Pa55" + ";Encrypt=True;", "jdbc:sqlserver://db:1433;user=app;pwd=" + b62(10) + ";",
				"https://app.example.com/login?user=a&pw=" + "Fake-Pa55word!", "/auth?senha=" + "Fake-Pa55word!" + "&x=1"},
			[]string{"Server=db;Database=app;Integrated Security=true;", "Server=db;Password=${DB_PASSWORD};", "Password=;", "Pwd=xxxx;"}),
		mk("session-cookie",
			`(?i)\b(?:set-)?cookie:[^\n]{0,512}?\b(?:session(?:id)?|sessid|phpsessid|jsessionid|connect\.sid|_session|[a-z0-9]{1,32}_session|asp\.net_sessionid|__secure-[a-z0-9_-]{1,32}|__host-[a-z0-9_-]{1,32}|sid|remember_token|auth_token)=(?P<secret>[A-Za-z0-9%+/._:=-]{16,1000})`,
			"Session cookie value in a Cookie or Set-Cookie header.",
			[]string{"Cookie: theme=dark; sessionid=" + b62(32), "Set-Cookie: __Host-auth=" + b62(48) + "; Path=/; Secure; HttpOnly"},
			[]string{"Cookie: theme=dark; lang=en", "Set-Cookie: sessionid=deleted; Max-Age=0", "Cookie: sessionid=aaaaaaaaaaaaaaaaaaaa"}),
		mk("config-password-unquoted",
			`(?im)(?:password|passwd|passphrase|pwd)(?:`+metaName(passwordMeta, passwordMetaCamel)+`|[A-Za-z0-9_.-]{0,16})[ \t]{0,4}:[ \t]{1,4}(?P<secret>[^\s"'#,;(){}\[\]<>|&*!%@$`+"`"+`][^\s"',;(){}\[\]<>&`+"`"+`]{3,127})`,
			"Unquoted YAML or properties password value (password: value) that is not a template, URL, path, resource name, identifier or placeholder word.",
			[]string{"database:\n  password: " + "Fake-Pa55word" + "\n", "smtp_password: " + b62(18)},
			[]string{"password: ${DB_PASSWORD}", "password_min_length: 12", "Password: cfg.Password,", "password: !vault |", "db_password: projects/p/secrets/db-password/versions/3",
				"password_reset_url: https://example.com/reset", "password: user_password"}),
		mk("sql-password",
			`(?i)(?:\bidentified[ \t]{1,4}(?:with[ \t]{1,4}[A-Za-z0-9_]{1,32}[ \t]{1,4})?by(?:[ \t]{1,4}password)?[ \t]{1,4}(?:'(?P<secret>[^'\s]{1,128})'|"(?P<secret2>[^"\s]{1,128})"|(?P<secret3>[A-Za-z0-9_#$!@%^*+.-]{4,128}))|[ \t]password(?:[ \t]{0,4}=)?[ \t]{0,4}'(?P<secret4>[^'\s]{1,128})')(?:[\s;,)]|$)`,
			"Password in a SQL statement that creates or changes an account: IDENTIFIED BY (MySQL, Oracle, unquoted too), PASSWORD '...' (PostgreSQL's WITH, LOGIN and ENCRYPTED PASSWORD, SET PASSWORD =) (red team rtq); not a template or placeholder.",
			[]string{"CREATE USER app IDENTIFIED BY '" + "Fake-Pa55word!" + "';", "ALTER USER app WITH PASSWORD '" + "Fake-Pa55word!" + "';",
				"CREATE ROLE app LOGIN PASSWORD '" + "Fake-Pa55word!" + "';", "alter user scott identified by " + "Fake_Pa55word" + ";",
				"CREATE USER 'app'@'%' IDENTIFIED WITH mysql_native_password BY '" + "Fake-Pa55word!" + "';"},
			[]string{"ALTER USER app WITH PASSWORD NULL;", "CREATE USER app IDENTIFIED BY '${DB_PASSWORD}';", "identified by password hash",
				"users are identified by email", "ALTER USER app WITH PASSWORD :'pw';", "log in with password", "./migrate --db-password '" + "Fake-Pa55word!" + "'"}),
		mk("password-hash",
			`\$(?:apr1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}|2[aby]\$[0-9]{2}\$[./A-Za-z0-9]{53}|[56]\$(?:rounds=[0-9]{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86}|y\$[./A-Za-z0-9]{1,12}\$[./A-Za-z0-9]{1,64}\$[./A-Za-z0-9]{43})`,
			"Password hash in crypt(3) form, as in htpasswd and shadow files ($apr1$, $2b$ bcrypt, $5$/$6$ SHA-crypt, $y$ yescrypt): crackable offline.",
			[]string{"admin:$apr1$" + "fakesalt$" + fill("FAKEexample0hash1", 22), "root:$6$" + "fakesalt$" + fill("FAKEexample0hash1", 86) + ":19000:0:99999:7:::"},
			[]string{"admin:x:1000:1000::/home/admin:/bin/bash", "price:$5 for two", "$6$short$abc"}),
	}
	for i := range rules {
		switch rules[i].Name {
		case "netrc-password", "pgpass-entry", "connection-string-password", "config-password-unquoted", "sql-password":
			rules[i].Exclude = notSecret
			rules[i].MinEntropy = 2.5
		case "kubernetes-secret-data-listed", "kubernetes-secret-json-listed":
			// Their matches start at the data key, before the kind that
			// makes it a Secret, at any distance: run them (over the whole
			// text) only where a Secret's kind is written.
			// A kind line's value after its colon, quoted or tagged, as
			// k8sSecretKind reads it (red team rud); not after a tab,
			// which the root's stream writes in the kind line of a data
			// block's kept end, where this rule finds nothing.
			rules[i].Keywords = []string{": Secret", ":Secret", `: "Secret`, ": 'Secret", `:"Secret`, ":'Secret", ":  Secret", ":   Secret", ":    Secret",
				"!!str Secret", "str> Secret", `kind\": \"Secret`, `kind\":\"Secret`, `kind\\\":\\\"Secret`}
			if rules[i].Name == "kubernetes-secret-data-listed" {
				rules[i].Exclude = k8sMetadata
			}
		case "docker-config-auth", "session-cookie":
			rules[i].MinEntropy = 3
		}
	}
	return rules
}
