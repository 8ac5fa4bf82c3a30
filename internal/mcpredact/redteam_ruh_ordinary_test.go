package mcpredact_test

import "testing"

// Red team ruh: ordinary files a tool returns go out byte for byte
// through the readings of declarations, calls' arguments, options,
// heredocs and value elements.
func TestRedTeamRUH_OrdinaryFiles(t *testing.T) {
	for name, doc := range map[string]string{
		"pyproject":  "[project]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\"requests>=2\", \"passlib[bcrypt]\"]\n\n[tool.ruff]\nline-length = 100\n",
		"cargo":      "[package]\nname = \"app\"\nedition = \"2021\"\n\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\npassword-hash = \"0.5\"\n",
		"compose":    "services:\n  db:\n    image: postgres:16\n    environment:\n      - POSTGRES_USER=app\n      - POSTGRES_PASSWORD_FILE=/run/secrets/db_password\n    secrets:\n      - db_password\nsecrets:\n  db_password:\n    file: ./db_password.txt\n",
		"nginx":      "server {\n  listen 443 ssl;\n  auth_basic \"Restricted\";\n  auth_basic_user_file /etc/nginx/.htpasswd;\n  location / { proxy_pass http://app:8080; }\n}\n",
		"dockerfile": "FROM python:3.12\nARG PIP_INDEX_URL\nENV PYTHONDONTWRITEBYTECODE=1\nRUN --mount=type=secret,id=db_password cat /run/secrets/db_password > /dev/null\nCMD [\"gunicorn\", \"app:app\"]\n",
		"shell":      "#!/bin/sh\nset -eu\nreadonly PASSWORD_FILE=\"${PASSWORD_FILE:-/run/secrets/pw}\"\nlocal_password=$(cat \"$PASSWORD_FILE\")\nmysql --user=root --password=\"$local_password\" -e 'select 1'\n",
		"python":     "def login(user, password):\n    conn = connect(host=\"db\", user=user, password=password)\n    log.info(\"login\", extra={\"user\": user})\n    return check(password=password, hashed=user.password_hash)\n",
		"js":         "const password = document.getElementById('password').value;\nfetch('/login', { method: 'POST', body: JSON.stringify({ password }) });\nsetPassword('');\n",
		"wp-config":  "define( 'DB_NAME', 'wordpress' );\ndefine( 'DB_PASSWORD', getenv('WORDPRESS_DB_PASSWORD') );\ndefine( 'DB_HOST', 'localhost' );\n",
		"html":       "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Sign in</title></head>\n<body><form method=\"post\">\n<label for=\"password\">Password</label>\n<input type=\"password\" name=\"password\" id=\"password\" autocomplete=\"current-password\" required>\n<a href=\"/reset?x=1&y=2\">Forgot password?</a>\n</form></body></html>\n",
		"terraform":  "variable \"db_password\" {\n  type      = string\n  sensitive = true\n}\nresource \"aws_db_instance\" \"db\" {\n  password = var.db_password\n}\n",
		"java cmd":   "java -Xmx512m -Dspring.profiles.active=\"prod\" -Dserver.port=\"8080\" -jar app.jar\n",
		"csproj":     "<Project Sdk=\"Microsoft.NET.Sdk.Web\">\n  <ItemGroup>\n    <PackageReference Include=\"BCrypt.Net-Next\" Version=\"4.0.3\" />\n  </ItemGroup>\n</Project>\n",
		"hadoop":     "<configuration>\n  <property>\n    <name>hadoop.security.credential.provider.path</name>\n    <description>where the passwords are</description>\n    <value>jceks://file/etc/hadoop/creds.jceks</value>\n  </property>\n</configuration>\n",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("%s changed (%d findings):\n%q\nto\n%q", name, n, doc, got)
		}
	}
}
