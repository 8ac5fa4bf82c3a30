package mcpredact

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// credClass is what a name says its value is: a password, another secret
// (a key, a token, credentials), or neither.
type credClass uint8

const (
	notCredential credClass = iota
	passwordName
	secretName
	// passwordSetting and secretSetting are the names of a setting about
	// a credential or of its identifier (pw_type, privKeyId, token_ref:
	// settings.go).
	passwordSetting
	secretSetting
)

// canonical is the name a class's value is scanned under: the name the
// scanner's generic rules read ("password", "secret", and for a setting
// "password_id", "secret_id", whose value the rules take for a
// credential only when it reads as no setting or identifier), so that
// their entropy floors and exclusions (templates, paths, URLs,
// placeholders, words of letters only) decide, whatever the original
// name's spelling.
func (c credClass) canonical() string {
	switch c {
	case passwordName:
		return "password"
	case passwordSetting:
		return "password_id"
	case secretSetting:
		return "secret_id"
	}
	return "secret"
}

// passwordWords are the head words of a password's name, in the languages
// configuration is written in.
var passwordWords = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "pw": true, "passphrase": true, "passcode": true,
	"passwort": true, "kennwort": true, "contraseña": true, "contrasena": true, "passe": true, "senha": true,
	"wachtwoord": true, "hasło": true, "haslo": true, "parol": true, "parola": true, "пароль": true, "lösenord": true,
	"losenord": true, "salasana": true, "adgangskode": true, "密码": true, "密碼": true, "パスワード": true, "비밀번호": true,
	// Red team rtq: more languages, and French's abbreviation.
	"mdp": true, "口令": true, "암호": true, "şifre": true, "sifre": true, "heslo": true, "jelszó": true, "jelszo": true,
	"lozinka": true, "geslo": true, "kodeord": true, "passord": true, "parool": true, "κωδικός": true, "סיסמה": true,
	"पासवर्ड": true, "รหัสผ่าน": true, "mậtkhẩu": true, "pword": true,
}

// secretWords are the head words of a secret's name that say so alone.
var secretWords = map[string]bool{
	"secret": true, "token": true, "apikey": true, "privkey": true, "privatekey": true, "secretkey": true, "kek": true,
	"dek": true, "psk": true, "credential": true, "credentials": true, "cred": true, "creds": true, "auth": true,
	"authorization": true, "cookie": true, "jwt": true, "bearer": true, "sig": true, "hmac": true, "sas": true,
	// Red team rtq: the same words in other languages.
	"jeton": true, "токен": true, "секрет": true, "令牌": true, "秘密": true, "密钥": true, "秘钥": true, "密鑰": true,
	"토큰": true, "トークン": true, "シークレット": true, "秘密鍵": true,
}

// keyQualifiers are the words before "key" that make it a secret key
// (api key, private key, signing key); a key of any other kind (sort key,
// public key, cache key, idempotency key, a GPG key's fingerprint as
// Docker images set GPG_KEY) is no secret, nor is "key" alone.
var keyQualifiers = map[string]bool{
	"api": true, "private": true, "priv": true, "secret": true, "signing": true, "sign": true, "encryption": true,
	"encrypt": true, "master": true, "access": true, "client": true, "auth": true, "account": true, "shared": true,
	"license": true, "licence": true, "service": true, "session": true, "app": true, "hmac": true, "ssh": true,
	"root": true, "admin": true, "crypto": true, "cipher": true, "aes": true,
	"storage": true, "subscription": true, "webhook": true, "deploy": true, "consumer": true, "mac": true,
	"jwt": true, "server": true, "integration": true, "sas": true, "primary": true, "secondary": true,
}

// tokenNotCredential are the words before "token" that make it a
// pagination or other non-credential token.
var tokenNotCredential = map[string]bool{
	"next": true, "page": true, "continuation": true, "pagination": true, "cursor": true, "sync": true,
	"resume": true, "continue": true, "marker": true, "max": true, "min": true, "num": true, "stop": true,
	"start": true, "end": true, "eos": true, "bos": true, "pad": true, "unk": true, "special": true, "cancellation": true,
}

// valueWords are tail words that name the form of the value, not what it
// is (passwordValue, secret_b64, tokenHash): the word before them is read;
// and the members of an object so named that hold its value
// ({"password": {"value": ...}}, {"db_pw": {"default": ...}}).
var valueWords = map[string]bool{
	"value": true, "val": true, "plain": true, "plaintext": true, "cleartext": true, "text": true, "string": true,
	"str": true, "raw": true, "b64": true, "base64": true, "encoded": true, "hash": true, "hashed": true,
	"data": true, "bytes": true, "current": true, "new": true, "old": true, "encrypted": true,
	// A JSON Schema's default and const (an elicitation form's fields).
	"default": true, "const": true,
}

// classify reads an object member's name (or an environment variable's,
// or a flag's) as words, whatever its case, separators, compatibility
// forms (fullwidth) and Latin look-alikes from other scripts, and reports
// what its head word says the value is.
func classify(name string) credClass {
	if name == "" || len(name) > 128 || !mayName(name) {
		return notCredential
	}
	// A word in another script is read as it is written, and with its
	// Latin look-alikes as Latin letters (пароль is no Latin word: mapped,
	// it read as "пapoль" and was no password's name, red team rtq); a
	// word with @ $ or 0 between letters as the letters they stand for
	// (p@ssw0rd, pa$$word).
	if c := classifyWords(nameWords(name, true)); c != notCredential {
		return c
	}
	if !ascii(name) {
		if c := classifyWords(nameWords(name, false)); c != notCredential {
			return c
		}
	}
	if l := unLeet(name); l != name {
		return classifyWords(nameWords(l, true))
	}
	return notCredential
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// unLeet returns name with @ $ and 0 between letters (or doubled: pa$$)
// read as a, s and o.
func unLeet(name string) string {
	b := []byte(name)
	letter := func(i int) bool {
		return i >= 0 && i < len(b) && (b[i] >= 'a' && b[i] <= 'z' || b[i] >= 'A' && b[i] <= 'Z' || b[i] == '$')
	}
	for i, c := range b {
		var r byte
		switch c {
		case '@':
			r = 'a'
		case '$':
			r = 's'
		case '0':
			r = 'o'
		}
		if r != 0 && letter(i-1) && letter(i+1) {
			b[i] = r
		}
	}
	return string(b)
}

// classifyWords reports what a name's words say its value is.
func classifyWords(ws []string) credClass {
	for len(ws) > 1 && valueWords[ws[len(ws)-1]] {
		ws = ws[:len(ws)-1]
	}
	if c := classifySetting(ws); c != notCredential {
		return c
	}
	if len(ws) == 0 {
		return notCredential
	}
	head, qual := ws[len(ws)-1], ""
	if len(ws) > 1 {
		qual = ws[len(ws)-2]
		if passwordWords[qual+head] { // pass_word, Pass-Word
			return passwordName
		}
	}
	switch {
	case passwordWords[head], strings.Contains(head, "password"), strings.Contains(head, "passwd"),
		strings.Contains(head, "passphrase"), strings.HasSuffix(head, "pwd"):
		return passwordName
	case head == "token":
		if tokenNotCredential[qual] {
			return notCredential
		}
		return secretName
	case head == "key" || head == "keys":
		if keyQualifiers[qual] {
			return secretName
		}
		return notCredential
	case secretWords[head]:
		return secretName
	}
	// One word of run-together words: accesstoken, signingkey, dbsecret.
	for _, suffix := range []string{"token", "secret"} {
		if p, ok := strings.CutSuffix(head, suffix); ok && p != "" && !tokenNotCredential[p] {
			return secretName
		}
	}
	if p, ok := strings.CutSuffix(head, "key"); ok && keyQualifiers[p] {
		return secretName
	}
	// A word of a script that runs words together: 数据库密码 (the
	// database's password), 访问令牌.
	if head[0] >= utf8.RuneSelf {
		for w := range passwordWords {
			if w[0] >= utf8.RuneSelf && strings.HasSuffix(head, w) {
				return passwordName
			}
		}
		for w := range secretWords {
			if w[0] >= utf8.RuneSelf && strings.HasSuffix(head, w) {
				return secretName
			}
		}
	}
	return notCredential
}

// nameWords splits a name into lower-case words at separators, at
// camelCase boundaries (APIKey: api, key) and at digits, after folding it
// to NFKC and mapping look-alike letters to Latin ones.
func nameWords(name string, latin bool) []string {
	name = foldName(name, latin)
	var ws []string
	rs := []rune(name)
	start := -1
	flush := func(end int) {
		if start >= 0 {
			ws = append(ws, strings.ToLower(string(rs[start:end])))
			start = -1
		}
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) {
			flush(i)
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			next := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || (unicode.IsUpper(prev) && next) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return ws
}

// foldName returns name in NFKC form with invisible runes removed and
// Cyrillic and Greek look-alikes of Latin letters mapped to them
// (pаssword with a Cyrillic а is password to a reader) when latin is set.
func foldName(name string, latin bool) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return name
	}
	name = norm.NFKC.String(name)
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		if l, ok := lookAlikes[r]; ok && latin {
			return l
		}
		return r
	}, name)
}

// lookAlikes maps Cyrillic and Greek letters that look like Latin ones.
var lookAlikes = map[rune]rune{
	'а': 'a', 'е': 'e', 'к': 'k', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ј': 'j',
	'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'һ': 'h',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'У': 'Y',
	'Х': 'X', 'Ѕ': 'S', 'І': 'I', 'Ј': 'J',
	'α': 'a', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x', 'ν': 'v',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P',
	'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
}

// triggers are what every name classify reads as a credential holds, in
// ASCII lower case: a name with none of them (and no rune above ASCII) is
// passed over without being split into words.
var triggers = []string{"pass", "pw", "secret", "key", "token", "auth", "cred", "cookie", "jwt", "bearer", "sig", "hmac", "kek", "dek", "psk", "sas",
	"wort", "contrase", "senha", "wachtwoord", "haslo", "parol", "salasana", "losenord", "adgangskode",
	"mdp", "sifre", "heslo", "jelszo", "lozinka", "geslo", "kodeord", "jeton", "ssw", "$$", "@ss", "w0rd"}

// triggerSet finds the triggers.
var triggerSet = newWordSet(triggers)

// mayName reports whether name holds a trigger in any case, or a rune
// above ASCII (a fullwidth or look-alike spelling, a name in another
// script), without allocating.
func mayName(name string) bool {
	return !ascii(name) || triggerSet.in(name) || escapedWord(name, triggerSet)
}
