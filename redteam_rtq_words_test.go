package gatehouse_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team rtq, text rules: a password named in another language or
// spelled with symbols (пароль, 密码 with a fullwidth colon, contraseña,
// Passwort, mot de passe, PASS_WORD, p@ssw0rd), a token named in another
// language (токен, 令牌), a password in a query string's pw=, in a SQL
// statement (IDENTIFIED BY, WITH PASSWORD) or in a table's column named
// password (CSV, Markdown) reached a real client as text.
func TestRedTeamRTQ_PasswordWordsReachNoClient(t *testing.T) {
	texts := map[string]string{
		"russian":  "пароль: " + rtmPw,
		"chinese":  "数据库密码：" + rtmPw,
		"japanese": "パスワード: " + rtmPw,
		"spanish":  "contraseña: " + rtmPw,
		"german":   "Passwort: " + rtmPw,
		"french":   "mot de passe: " + rtmPw,
		"split":    "PASS_WORD=" + rtmPw,
		"leet":     `p@ssw0rd = "` + rtmPw + `"`,
		"token":    "токен: " + rtkKey,
		"query":    "GET https://app.example.com/login?user=a&pw=" + rtmPw + " HTTP/1.1",
		"sql":      "CREATE USER app IDENTIFIED BY '" + rtmPw + "';\nALTER USER app WITH PASSWORD '" + rtmPw + "';",
		"csv":      "user,password\nadmin," + rtmPw + "\n",
		"markdown": "| user | Passwort |\n|---|---|\n| admin | " + rtmPw + " |\n",
	}
	res := map[string]*mcp.CallToolResult{}
	for name, text := range texts {
		res[name] = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "host db.internal\n" + text}}}
	}
	_, cs := connectAt(t, rtServer(t, res), "agent", nil, "")
	for name := range texts {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": name}})
		if err != nil {
			t.Fatal(err)
		}
		text := got.Content[0].(*mcp.TextContent).Text
		rtmNoSecret(t, name, text)
		if !strings.Contains(text, "[REDACTED:") {
			t.Errorf("%s: no redaction marker: %s", name, text)
		}
	}
}
