package mcpredact

// A member named for a setting about a credential or for its identifier
// (pw_type, privKeyId, token_ref, a column password_id) was no
// credential's name to classify, and its value was scanned by the text
// rules alone, which know neither "pw" nor "privKey": a password or a
// token under such a name reached the client (red team rtu). Such a name
// is now a setting's (passwordSetting, secretSetting), scanned under
// "password_id" or "secret_id": the scanner's generic rules drop a value
// there that reads as a setting or an identifier (a UUID, words, a
// number, a regular expression) and redact any other.

// settingWords are the last words of a name that say its value describes
// or identifies a credential, as the scanner's generic rules read them
// (dlp's passwordMeta and secretMeta); min and max go before length.
var settingWords = map[string]bool{
	"policy": true, "policies": true, "rule": true, "rules": true, "length": true, "strength": true,
	"complexity": true, "pattern": true, "regex": true, "regexp": true, "format": true, "type": true,
	"mode": true, "age": true, "expiry": true, "expiration": true, "history": true, "prompt": true,
	"label": true, "field": true, "id": true, "ids": true, "version": true, "arn": true, "ref": true,
	"header": true, "min": true, "max": true,
}

// classifySetting reports the setting class of a name whose words end in
// setting words after a credential's name (password_min_length, pw_type,
// api_key_id, privKeyId), or notCredential.
func classifySetting(ws []string) credClass {
	n := len(ws)
	for n > 1 && settingWords[ws[n-1]] {
		n--
	}
	if n == len(ws) {
		return notCredential
	}
	switch classifyWords(ws[:n]) {
	case passwordName, passwordSetting:
		return passwordSetting
	case secretName, secretSetting:
		return secretSetting
	}
	return notCredential
}
