package mcpredact_test

import (
	"strings"
	"testing"
)

// Red team ruh: an assignment a line starts with a word, a dash or a
// quote before (docker compose's environment list, a Dockerfile's ENV, a
// batch file's set, a shell's readonly, PowerShell's $env:, a script's
// const), or whose quoted value a ; or a , ends (const pw = "...";, a Go
// struct literal's Password: "...",), was not read as an assignment: a
// password with spaces went out whole (the text rules end it at its
// first space, and found nothing in "correct").
func TestRedTeamRUH_AssignmentPrefixes(t *testing.T) {
	w := "correct horse battery staple"
	rtqWordsRedacted(t, map[string]string{
		"compose list":        "services:\n  db:\n    environment:\n      - POSTGRES_PASSWORD=" + w + "\n",
		"compose list quoted": "services:\n  db:\n    environment:\n      - \"POSTGRES_PASSWORD=" + w + "\"\n",
		"compose list single": "    environment:\n      - 'POSTGRES_PASSWORD=" + w + "'\n",
		"dockerfile ENV":      "FROM postgres:16\nENV DB_PASSWORD=\"" + w + "\"\n",
		"dockerfile ARG":      "ARG DB_PASSWORD=\"" + w + "\"\n",
		"batch set":           "@echo off\r\nset DB_PASSWORD=" + w + "\r\n",
		"batch set quoted":    "set \"DB_PASSWORD=" + w + "\"\r\n",
		"SET upper":           "SET DB_PASSWORD=" + w + "\r\n",
		"readonly":            "readonly DB_PASSWORD=\"" + w + "\"\n",
		"declare -x":          "declare -x DB_PASSWORD=\"" + w + "\"\n",
		"local":               "f() {\n  local db_password='" + w + "'\n}\n",
		"export (held)":       "export DB_PASSWORD=\"" + w + "\"\n",
		"powershell env":      "$env:DB_PASSWORD = \"" + w + "\"\n",
		"js const":            "const password = \"" + w + "\";\n",
		"js let":              "let dbPassword = '" + w + "';\n",
		"php var":             "<?php\n$db_password = '" + w + "';\n",
		"go struct":           "cfg := Config{\n\tHost:     \"db\",\n\tPassword: \"" + w + "\",\n}\n",
		"ts object":           "export default {\n  password: '" + w + "',\n};\n",
	})
}

// Red team ruh: a call's arguments that give a credential's value, a
// quoted name and a quoted value (wp-config.php's define, Setenv) or a
// keyword argument, were no assignment of a line: a password with spaces
// went out whole.
func TestRedTeamRUH_CallArguments(t *testing.T) {
	w := "correct horse battery staple"
	rtqWordsRedacted(t, map[string]string{
		"wp-config define":  "define( 'DB_NAME', 'wordpress' );\ndefine( 'DB_PASSWORD', '" + w + "' );\n",
		"go setenv":         "os.Setenv(\"DB_PASSWORD\", \"" + w + "\")\n",
		"py setdefault":     "os.environ.setdefault(\"DB_PASSWORD\", \"" + w + "\")\n",
		"config set":        "config.set('database', 'password', '" + w + "')\n",
		"py kwarg":          "conn = psycopg2.connect(host=\"db\", user=\"app\", password=\"" + w + "\")\n",
		"kwarg spaces":      "connect(host='db', password = '" + w + "')\n",
		"kwarg second line": "engine = create_engine(\n    url,\n    password=\"" + w + "\",\n)\n",
		"java -D":           "java -Xmx1g -Djavax.net.ssl.trustStorePassword=\"" + w + "\" -jar app.jar\n",
		"java -D single":    "exec java '-Ddb.password=" + w + "' -jar app.jar\n",
		"JAVA_OPTS -D":      "JAVA_OPTS=\"-Xmx1g -Ddb.password='" + w + "'\"\n",
		"mysql --password=": "mysql --user=root --password=\"" + w + "\" app < dump.sql\n",
		"--password space":  "$ psql-wrapper --host db --password '" + w + "'\n",
	})
}

// Near misses: the same shapes without a secret go out byte for byte.
func TestRedTeamRUH_AssignmentNearMisses(t *testing.T) {
	rtqUnchanged(t, []string{
		"services:\n  db:\n    environment:\n      - POSTGRES_PASSWORD=${POSTGRES_PASSWORD}\n      - POSTGRES_PASSWORD_FILE=/run/secrets/db_password\n",
		"    environment:\n      - \"POSTGRES_PASSWORD=${DB_PASSWORD:?set it}\"\n",
		"ENV DB_PASSWORD_FILE=/run/secrets/db_password\nARG PASSWORD\n",
		"set -euo pipefail\nset -x\nexport PATH=/usr/bin\n",
		"declare -A passwords\nlocal password\nreadonly PASSWORD_MIN=12\n",
		"const password = process.env.DB_PASSWORD;\nlet password = \"\";\nvar passwordMinLength = 12;\n",
		"const password = req.body.password;\nconst passwordHash = await bcrypt.hash(password, 10);\n",
		"type Login struct {\n\tPassword string `json:\"password\"`\n}\n",
		"cfg := Config{\n\tPassword: os.Getenv(\"DB_PASSWORD\"),\n\tHost: \"db\",\n}\n",
		"$env:DB_PASSWORD = $null\n",
		"- name: password\n- key: secret\n",
		"- a, b\n- \"x\"\n",
		"pw := os.Getenv(\"DB_PASSWORD\")\nv := getattr(settings, \"PASSWORD\", \"\")\n",
		"parser.add_argument(\"--password\", help=\"the database password\")\n",
		"log.Printf(\"password: %s\", masked)\nFormField(\"password\", \"string\")\n",
		"connect(host=\"db\", password=os.environ[\"DB_PASSWORD\"])\n",
		"f(\"a\", \"b\", " + strings.Repeat("\"x, ", 100) + ")\n",
		"mysql --password=\"$DB_PASSWORD\" --user=\"${DB_USER}\" app\n",
		"java -Djavax.net.ssl.trustStore=\"/etc/ssl/trust store.jks\" -Dpassword.min=\"12\" -jar app.jar\n",
		"  --password-file \"/run/secrets/db password\"\n  --no-password\n",
		"curl -H \"Accept: text/plain\" --data-raw \"a=b\" https://example.com\n",
	})
}

// Red team ruh: a heredoc under a credential's name (Terraform's and
// HCL's password = <<EOT) sent a password with spaces.
func TestRedTeamRUH_Heredoc(t *testing.T) {
	w := "correct horse battery staple"
	rtqWordsRedacted(t, map[string]string{
		"terraform":     "resource \"aws_db_instance\" \"db\" {\n  engine   = \"postgres\"\n  password = <<EOT\n" + w + "\nEOT\n}\n",
		"indented":      "locals {\n  db_password = <<-EOT\n    " + w + "\n  EOT\n}\n",
		"quoted marker": "password = <<\"END\"\n" + w + "\nEND\n",
		"crlf":          "password = <<EOT\r\n" + w + "\r\nEOT\r\n",
		"after unended": "pw = <<END\nx\n" + "password = <<EOT\n" + w + "\nEOT\n",
	})
	rtqUnchanged(t, []string{
		"resource \"aws_iam_policy\" \"p\" {\n  policy = <<EOF\n{\"Version\": \"2012-10-17\"}\nEOF\n}\n",
		"  password = <<EOT\n${var.db_password}\nEOT\n",
		"  user_data = <<-EOT\n    #!/bin/bash\n    echo password reset\n  EOT\n",
		"password = <<EOT\n",
	})
}

// Red team ruh: a Java properties file's dotted key with a colon and no
// space after it (db.password:...) sent a password with spaces.
func TestRedTeamRUH_PropertiesColon(t *testing.T) {
	w := "correct horse battery staple"
	rtqWordsRedacted(t, map[string]string{
		"colon":       "db.host=x\ndb.password:" + w + "\n",
		"colon space": "spring.datasource.password :" + w + "\n",
	})
	rtqUnchanged(t, []string{
		"db.password:${DB_PASSWORD}\nspring.datasource.password:\n",
		"std::string password;\nserver.url:https://example.com/login\n",
		"See db.password:the docs say to set it in the vault\n",
		"app.password.policy:strict\n",
	})
}
