package mcpredact

import (
	"regexp"
	"strings"
)

// A credential's field declared with its type (TypeScript's password:
// string;, password?: string,, Rust's password: Option<String>,, Kotlin's
// val password: String = "", Zod's password: z.string().min(12),) reads
// as YAML or an assignment, and its type as the value: "string;" holds a
// symbol, and the scanner's rules took it for a password (red team rva).
// typeAnnotation reports whether a value reads as a type or a schema's
// call on identifiers of letters only, in a spelling that only code has
// (a ; or , after it, a generic's <...>, [], *, ?, a union, a default, a
// call); such a value is not scanned under the name (scanNamed). A word
// of letters alone ("Hello.World") is no type here: the rules decide.

var typeExpr = func() *regexp.Regexp {
	ident := `[A-Za-z_]+`
	qual := ident + `(?:\.` + ident + `)*`
	typ := `(?:\[\]|\*)*` + qual + `(?:<[A-Za-z_ ,.<>\[\]|?]*>)?(?:\[\])*\??`
	union := typ + `(?:[ \t]*\|[ \t]*` + typ + `)*`
	args := `\([A-Za-z0-9_ .,'"=-]*\)`
	call := qual + args + `(?:\.` + ident + args + `)*`
	def := `[ \t]*=[ \t]*(?:""|''|null|None|nil|undefined|\[\]|\{\}|-?[0-9]+(?:\.[0-9]+)?|` + ident + `)`
	return regexp.MustCompile(`^(?:` + union + `(?:` + def + `)?|` + call + `)[ \t]*[;,]?$`)
}()

// typeAnnotation reports whether v (without the white space around it)
// reads as a type annotation or a schema's call (above).
func typeAnnotation(v string) bool {
	if len(v) < 2 || len(v) > 96 || !strings.ContainsAny(v, ";,<>[]|?=*(") {
		return false
	}
	if c := v[0]; c != '[' && c != '*' && c != '_' && (c|0x20 < 'a' || c|0x20 > 'z') {
		return false
	}
	return typeExpr.MatchString(v)
}
