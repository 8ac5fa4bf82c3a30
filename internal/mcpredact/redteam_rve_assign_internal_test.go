package mcpredact

import (
	"strings"
	"testing"
)

// Red team rve: only a line's first assignment (or a declaration's pairs)
// was read, so a quoted NAME="value" later on the line, or a quoted
// "NAME=value" anywhere, sent a password with spaces: a shell's prefix
// before a command, docker's -e, helm's --set, Terraform's TF_VAR_, a
// systemd Environment= with a pair before it, Apache's SetEnvIf, an INI
// value with a comment after it, ENV's first pair before another.
func TestRedTeamRVE_QuotedPairsOnALine(t *testing.T) {
	for _, doc := range []string{
		"[Service]\nEnvironment=A=1 \"DB_PASSWORD=correct horse battery staple\"\n",
		"docker run -e DB_PASSWORD='correct horse battery staple' img\n",
		"docker run --rm -e A=1 -e \"DB_PASSWORD=correct horse battery staple\" img\n",
		"helm install x --set db.password='correct horse battery staple'\n",
		"helm install x --set-string \"db.password=correct horse battery staple\"\n",
		"TF_VAR_db_password='correct horse battery staple' terraform apply\n",
		"PassEnv X\nSetEnvIf Request_URI . DB_PASSWORD=\"correct horse battery staple\"\n",
		"[database]\nPassword = \"correct horse battery staple\" ; comment\n",
		"ENV DB_PASSWORD=\"correct horse battery staple\" A=1\n",
		"RUN DB_PASSWORD='correct horse battery staple' make\n",
		"DB_PASSWORD=\"correct horse battery staple\" ./run.sh\n",
		"$ kubectl create secret generic db --from-literal=password='correct horse battery staple'\n",
	} {
		if got, f := rvaTexts(t, doc); strings.Contains(got[0], "horse") || len(f) == 0 {
			t.Errorf("a password went out: %q", got[0])
		}
	}
}

// Near misses: comparisons, references, paths, settings and markup on
// such lines go out unchanged.
func TestRedTeamRVE_QuotedPairsNearMisses(t *testing.T) {
	for _, doc := range []string{
		"if [ \"$DB_PASSWORD\" == \"\" ]; then exit 1; fi\n",
		"test \"$password\" = \"changeme\" && echo weak\n",
		"docker run -e DB_PASSWORD=\"$DB_PASSWORD\" -e DB_USER=\"app\" img\n",
		"helm upgrade x --set db.password=\"${DB_PASSWORD}\" --set image.tag=\"1.2.3\"\n",
		"helm upgrade x --set-string \"db.passwordFile=/run/secrets/db\"\n",
		"DB_PASSWORD=\"\" ./run.sh --verbose\n",
		"<input type=\"password\" name=\"password\" placeholder=\"Your password\" autocomplete=\"current-password\">\n",
		"run --password-file=\"/etc/app/pw\" --token-ttl=\"3600\"\n",
		"x = a == b; password_hint=\"see the vault\" ; y=\"1\"\n",
	} {
		if got, f := rvaTexts(t, doc); got[0] != doc {
			t.Errorf("changed (%v):\n%q\nto\n%q", f, doc, got[0])
		}
	}
}
