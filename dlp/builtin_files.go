package dlp

// Credentials in file formats the generic rules do not read: XML
// configuration (.NET app.config, Maven settings.xml, Spring beans),
// properties and INI files written "password = value", .npmrc _auth, Oracle
// connect strings, JSON Web Keys, and the data of a Kubernetes Secret
// whose kind is not in sight (a stream that sends the data block before
// the "kind: Secret" line after it).

// xmlSecretName is an element or key name that holds a credential.
const xmlSecretName = `(?i:password|passwd|pwd|passphrase|secret|api[_.-]?key|apikey|private[_.-]?key|access[_.-]?key|token)`

// xmlSecretElem is how the name of an XML element that holds a credential
// ends: the element's name is the literal the rule is looked for by
// ("password>"), so that the word alone ("token", everywhere in source
// code) does not set the rule off.
const xmlSecretElem = `(?i:password|passwd|secret|apikey|api_key|token)`

// xmlGap is what an XML reader skips between a name and its value: white
// space and comments (<key>Password</key><!-- wifi --><string>..., red
// team rtd).
const xmlGap = `[ \t\r\n]{0,64}(?:<!--(?:[^-]|-[^-]){0,120}-->[ \t\r\n]{0,32}){0,3}`

// jwkQ is a quote in a JSON Web Key, escaped or not (a key inside a JSON
// string).
const jwkQ = `\\{0,7}"`

// jwkPrivate is a private member of a JSON Web Key (RFC 7518 §6.2.2, §6.3.2,
// §6.4.1; RFC 8037 §2) with its value.
const jwkPrivate = jwkQ + `(?:d|p|q|dp|dq|qi|k)` + jwkQ + `[ \t\r\n]{0,16}:[ \t\r\n]{0,16}` + jwkQ + `[A-Za-z0-9_-]{16,}` + jwkQ

// b64Quanta is a padded standard base64 string of at least 8 bytes, as
// kubectl prints a Secret's values, or its start at the end of a text (a
// stream's message that ends inside the value).
const b64Quanta = `(?:[A-Za-z0-9+/]{4}){2,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{1,3}$)?`

func fileRules() []Rule {
	b62 := func(n int) string { return fill(fakeAlnum, n) }
	jwkPart := func(n int) string { return fill("FAKEjwk0example_part-1", n) }
	rules := []Rule{
		mk("xml-element-secret",
			`<[A-Za-z0-9_.:-]{0,48}`+xmlSecretElem+`>`+xmlGap+`(?:<!\[CDATA\[)?(?P<secret>[^<>\s]{4,512}?)(?:\]\]>)?[ \t\r\n]{0,32}</`,
			"Text of an XML element whose name ends in password, secret, api key or token, without attributes (<password>, <apiKey>, <DbPassword>, Maven's <server><password>): a value with a digit or symbol, entropy at least 2.5 bits per byte, not a template or placeholder.",
			[]string{"<server><id>nexus</id><password>" + "Fake-Pa55word!" + "</password></server>", "<ApiKey>" + b62(32) + "</ApiKey>"},
			[]string{"<password>${env.NEXUS_PASSWORD}</password>", "<password>changeme</password>", "<maxTokens>4096</maxTokens>", "<secretName>db-credentials</secretName>",
				"<password></password>", "<tokenizer>bert-base-uncased</tokenizer>"}),
		mk("xml-attribute-secret",
			`\b(?:key|name|Key|Name|KEY|NAME)=["'](?i)[A-Za-z0-9_.:-]{0,32}`+xmlSecretName+`(?:`+metaName(passwordMeta+`|`+secretMeta, passwordMetaCamel+`|`+secretMetaCamel)+`|[A-Za-z0-9_.:-]{0,32})["'](?:(?:[ \t\r\n]{1,8}[A-Za-z:_-]{1,32}[ \t]{0,4}=[ \t]{0,4}"[^"<>]{0,128}"){0,3}?[ \t\r\n]{1,8}value[ \t]{0,4}=[ \t]{0,4}(?:"(?P<secret>[^"]{3,512})"|'(?P<secret2>[^']{3,512})')|[^<>]{0,200}>(?:<value>)?(?P<secret3>[^<>\s]{4,512})</)`,
			"Value of an XML setting keyed by a password, secret, api key or token name (<add key=\"ApiKey\" value=\"...\"/>, <property name=\"password\" value=\"...\"/>, <entry key=\"api.key\">...</entry>): a value with a digit or symbol, entropy at least 2.5 bits per byte, not a template or placeholder.",
			[]string{`<add key="ApiKey" value="` + b62(32) + `"/>`, `<property name="password" value="` + "Fake-Pa55word!" + `"/>`, `<entry key="api.key">` + b62(32) + `</entry>`,
				`<setting name="ClientSecret" serializeAs="String"><value>` + b62(32) + `</value></setting>`,
				`<add key="PasswordPolicy" value="Fake-Pa55word!"/>`},
			[]string{`<add key="ApiKey" value="$(ApiKey)"/>`, `<add key="Password" value="changeme"/>`, `<add key="PasswordMinLength" value="12"/>`, `<add key="ApiUrl" value="https://api.example.com/v1"/>`,
				`<add key="ApiKey" value="YOUR_API_KEY_HERE"/>`,
				// A setting about the credential, or its identifier (the
				// name's last word: metaName), holds words, not a secret.
				`<add key="PasswordPolicy" value="at least twelve characters"/>`, `<add key="ApiKeyId" value="8f14e45f-ceea-467f-a0e6-1c2b3d4e5f60"/>`}),
		mk("plist-secret",
			`<key>[ \t]{0,4}[A-Za-z0-9_.:-]{0,48}`+xmlSecretName+`[ \t]{0,4}</key>`+xmlGap+`<(?:string|data)>`+xmlGap+`(?:<!\[CDATA\[)?(?P<secret>[^<>\s]{4,512}?)(?:\]\]>)?[ \t\r\n]{0,32}</(?:string|data)>`,
			"Value of a property list entry whose key ends in password, secret, api key, token, passphrase, private or access key (a .mobileconfig profile's <key>Password</key><string>...</string>, a plist printed by plutil or defaults), as a string or data: a value with a digit or symbol, entropy at least 2.5 bits per byte, not a template or placeholder (red team rty); a CDATA section's value too (red team rtc).",
			[]string{"<key>Password</key>\n\t<string>" + "Fake-Pa55word!" + "</string>", "<key>APIKey</key><string>" + b62(32) + "</string>",
				"<dict>\n  <key>AuthToken</key>\n  <data>" + b62(40) + "</data>"},
			[]string{"<key>Password</key><string>changeme</string>", "<key>PasswordMinLength</key><integer>12</integer>", "<key>TokenType</key><string>Bearer</string>",
				"<key>SecretName</key><string>db-credentials-v2</string>", "<key>Password</key><string>${WIFI_PASSWORD}</string>", "<key>TokenURL</key><string>https://auth.example.com/token</string>"}),
		mk("config-password-spaced",
			`(?i)(?:password|passwd|passphrase|pwd)(?:`+metaName(passwordMeta, passwordMetaCamel)+`|[A-Za-z0-9_.-]{0,16})[ \t]{0,4}[=:][ \t]{0,4}(?P<secret>[^\s"'#,;(){}\[\]<>|&*!%@$=:`+"`"+`][^\s"',;(){}\[\]<>&`+"`"+`]{3,127})(?:[\s<]|$)`,
			"Unquoted password in a properties, INI or .pypirc file written with spaces around the = or without a space after the colon (password = value, db.password:value): a value with a digit or symbol that ends the line or word, entropy at least 2.5 bits per byte, not a template, path, URL, identifier or call.",
			[]string{"[pypi]\nusername = deploy\npassword = " + "Fake-Pa55word!" + "\n", "spring.datasource.password = " + "Fake-Pa55word!", "db.password:" + "Fake-Pa55word!"},
			[]string{"password = getPassword();", "password = None", "password = self._password", "passwd: files systemd", "password = changeme", "password = ${DB_PASSWORD}",
				"password_min_length = 12", "password == \"x\"", "password = os.environ[\"DB_PASSWORD\"]"}),
		mk("npmrc-auth",
			`(?:^|[^A-Za-z0-9_])_auth[ \t]{0,4}=[ \t]{0,4}(?P<secret>[A-Za-z0-9+/]{8,1000}={0,2})`,
			".npmrc _auth: base64 of user:password for a registry.",
			[]string{"_auth=" + "ZmFrZXVzZXI6RmFrZS1QYTU1d29yZA==", "//npm.example.com/:_auth = " + "ZmFrZXVzZXI6RmFrZS1QYTU1d29yZA=="},
			[]string{"_auth=${NPM_AUTH}", "oauth=" + "ZmFrZXVzZXI6RmFrZS1QYTU1d29yZA=="}),
		mk("oracle-connect-password",
			`(?:\bjdbc:oracle:[a-z0-9]{1,8}:|\b(?:sqlplus|sqlldr|expdp|impdp|dgmgrl)(?:[ \t]{1,4}-[A-Za-z]{1,8})*[ \t]{1,4})[^/@\s"'<>:]{1,64}/(?:(?P<secret>[^@\s"'<>/]{1,128})|"(?P<secret2>[^"\s]{1,128})")@`,
			"Password in an Oracle connect string user/password@db (jdbc:oracle:thin:, sqlplus, sqlldr, expdp, impdp); not a template.",
			[]string{"jdbc:oracle:thin:app/" + "Fake-Pa55word" + "@db.example.internal:1521/ORCL", "sqlplus -S scott/" + "Fake-Pa55word" + "@orcl"},
			[]string{"jdbc:oracle:thin:@db.example.internal:1521/ORCL", "sqlplus /nolog", "sqlplus scott/${ORACLE_PASSWORD}@orcl"}),
		mk("jwk-private-key",
			`\{(?P<secret>[^{}]*?`+jwkQ+`kty`+jwkQ+`[^{}]*?`+jwkPrivate+`[^{}]*|[^{}]*?`+jwkPrivate+`[^{}]*?`+jwkQ+`kty`+jwkQ+`[^{}]*)\}`,
			"JSON Web Key with a private member (d of an RSA, EC or OKP key, p, q, dp, dq, qi, or k of a symmetric key): the whole key object, members in any order.",
			[]string{`{"kty":"EC","crv":"P-256","x":"` + jwkPart(43) + `","y":"` + jwkPart(43) + `","d":"` + jwkPart(43) + `"}`,
				"{\n  \"crv\": \"Ed25519\",\n  \"d\": \"" + jwkPart(43) + "\",\n  \"kty\": \"OKP\",\n  \"x\": \"" + jwkPart(43) + "\"\n}",
				`{"kty":"oct","k":"` + jwkPart(43) + `","alg":"HS256"}`},
			[]string{`{"kty":"EC","crv":"P-256","x":"` + jwkPart(43) + `","y":"` + jwkPart(43) + `"}`, `{"keys":[{"kty":"RSA","n":"` + jwkPart(300) + `","e":"AQAB"}]}`,
				`{"d":"` + jwkPart(43) + `","type":"point"}`}),
		mk("kubernetes-data-base64",
			// A tool that streams kubectl get secret -o yaml line by line
			// sends the data block before the kind line after it: each
			// message is scanned with the end of the last (the root's
			// streams), never with what comes next. kubectl prints every
			// value of a Secret's data as padded base64; a ConfigMap's
			// data holds text. "metadata:" is told apart by its entries
			// (Exclude).
			k8sDataBase64,
			"A YAML data block whose every value is padded base64 of at least 8 bytes, as kubectl prints a Secret's data, when the Secret's kind is not in the same text (written after it, or in a later message): every entry, entropy at least 3.5 bits per byte.",
			[]string{"apiVersion: v1\ndata:\n  password: " + "RmFrZS1QYTU1d29yZA==" + "\n  user: " + "ZmFrZXVzZXI=" + "\n"},
			[]string{"apiVersion: v1\ndata:\n  log_level: info\n  mode: production\n", "metadata:\n  name: db\n", "data:\n  replicas: \"3\"\n"}),
		mk("kubernetes-data-base64-json",
			`"data"[ \t]{0,4}:[ \t]{0,4}\{(?P<secret>(?:[ \t\r\n]{0,64}"[A-Za-z0-9._-]{1,253}"[ \t]{0,4}:[ \t]{0,4}"`+b64Quanta+`(?:"[ \t]{0,4},?|$))+)`,
			"A JSON data object whose every value is padded base64 of at least 8 bytes, as kubectl -o json prints a Secret's data, when the Secret's kind is not in the same text (written after it, or in a later message): every entry, entropy at least 3.5 bits per byte.",
			[]string{"{\n    \"apiVersion\": \"v1\",\n    \"data\": {\n        \"creds\": \"" + "RmFrZS1QYTU1d29yZA==" + "\",\n        \"user\": \"" + "ZmFrZXVzZXI=" + "\"\n    },\n"},
			[]string{`{"apiVersion": "v1", "data": {"mode": "production", "level": "info"}}`, `{"apiVersion": "v1", "data": {"replicas": "3"}}`}),
		mk("private-key-base64",
			// Fixed prefixes of the DER encodings (and of OpenSSH's
			// container), as base64: "openssh-key-v1", PKCS#1 RSA
			// (SEQUENCE, INTEGER 0, INTEGER n), PKCS#8 RSA and EC
			// (version 0, rsaEncryption / id-ecPublicKey OIDs), PKCS#8
			// Ed25519 and X25519, SEC1 EC P-256 and P-384, and encrypted
			// PKCS#8 (PBES2). Public keys and certificates have other
			// prefixes.
			`(?:^|[^A-Za-z0-9+/])(?P<secret>(?:b3BlbnNzaC1rZXktdjE|MII[A-Za-z0-9+/]{3}IBAAKC(?:AQEA|AgEA)|MII[A-Za-z0-9+/]{3}IBADANBgkqhkiG9w0BAQEFAASC|MIG[A-Za-z0-9+/]AgEAMBMGByqGSM49AgEG|MC4CAQAwBQYDK2V[wu]BCIEI|MHcCAQEEI|MIGkAgEBBDA|MII[A-Za-z0-9+/]{2}DBOBgkqhkiG9w0BBQ0w)[A-Za-z0-9+/]{16,}={0,2}(?:(?:\r?\n|\\r\\n|\\n)[A-Za-z0-9+/]{16,}={0,2})*)`,
			"Private key without its PEM envelope: the base64 of an OpenSSH, PKCS#1, PKCS#8 (plain or encrypted) or SEC1 key, recognized by the fixed start of its encoding, in one run or over lines (PRIVATE_KEY=MIIEvQIBADANBg... in an environment).",
			[]string{"PRIVATE_KEY=MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + fill(fakeB64, 120), "SSH_KEY=b3BlbnNzaC1rZXktdjEAAAAABG5vbmU" + fill(fakeB64, 120),
				"key: MIIEpAIBAAKCAQEA" + fill(fakeB64, 64) + "\n" + fill(fakeB64, 64), `{"k": "MHcCAQEEI` + fill(fakeB64, 60) + `"}`,
				"MIIFHDBOBgkqhkiG9w0BBQ0w" + fill(fakeB64, 80)},
			[]string{"MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + fill(fakeB64, 120), "MIIDXTCCAkWgAwIBAgIJ" + fill(fakeB64, 120), "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + fill(fakeB64, 40),
				"xMHcCAQEEI" + fill(fakeB64, 60)}),
	}
	for i := range rules {
		switch rules[i].Name {
		case "xml-element-secret", "xml-attribute-secret", "plist-secret", "config-password-spaced":
			rules[i].MinEntropy = 2.5
			rules[i].Exclude = notSecret + `|^[A-Za-z]+$|^` + nameWord + `(?:[-_/]` + nameWord + `)+$`
		case "npmrc-auth":
			rules[i].MinEntropy = 3
		case "oracle-connect-password":
			rules[i].Exclude = templateOnly
		case "kubernetes-data-base64", "kubernetes-data-base64-json":
			rules[i].MinEntropy = 3.5
			// kubectl prints apiVersion first: the rule runs (over the
			// whole text) only on texts that hold an object's apiVersion,
			// as the stream's kept end does before the data block.
			rules[i].Keywords = []string{"apiVersion:", `"apiVersion"`}
			if rules[i].Name == "kubernetes-data-base64" {
				rules[i].Exclude = k8sMetadata
			}
		}
	}
	return rules
}
