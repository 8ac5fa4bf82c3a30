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
	// Inside a generic's <...> white space only around a , or a |: two
	// words side by side are a phrase (Secret<horse battery>).
	inner := `(?:[A-Za-z_.<>\[\]?]|[ \t]*[,|][ \t]*)*`
	typ := `(?:\[\]|\*)*` + qual + `(?:<` + inner + `>)?(?:\[\])*\??`
	union := typ + `(?:[ \t]*\|[ \t]*` + typ + `)*`
	// A call's arguments are names, named arguments and quoted strings
	// separated by commas (two words side by side are a phrase: Open(Sesame
	// 123)); a number only in a chained call (z.string().min(12), not
	// Summer(2024)).
	lit := `'[A-Za-z0-9_ .,=-]*'`
	arg := `(?:` + ident + `[ \t]*=[ \t]*)?(?:` + qual + `|` + lit + `|-?[0-9]+(?:\.[0-9]+)?)`
	first := `(?:` + ident + `[ \t]*=[ \t]*)?(?:` + qual + `|` + lit + `)`
	list := func(a string) string { return `\((?:[ \t]*` + a + `(?:[ \t]*,[ \t]*` + a + `)*[ \t]*)?\)` }
	call := qual + list(first) + `(?:\.` + ident + list(arg) + `)*`
	def := `[ \t]*=[ \t]*(?:""|''|null|None|nil|undefined|\[\]|\{\}|-?[0-9]+(?:\.[0-9]+)?|` + ident + `)`
	return regexp.MustCompile(`^(?:` + union + `(?:` + def + `)?|` + call + `)[ \t]*[;,]?$`)
}()

// primitives are the types written in lower case letters alone
// (TypeScript's, Python's, Rust's, Go's, Kotlin's keywords): a union of
// other lower-case words is a phrase (correct | horse | battery).
var primitives = map[string]bool{
	"string": true, "number": true, "boolean": true, "bool": true, "null": true, "undefined": true,
	"any": true, "unknown": true, "never": true, "void": true, "object": true, "bigint": true,
	"symbol": true, "str": true, "bytes": true, "int": true, "float": true, "none": true,
	"char": true, "byte": true, "rune": true, "uint": true, "long": true, "short": true,
	"double": true, "secret": true, "text": true, "password": true, "array": true, "list": true,
	"dict": true, "map": true, "optional": true, "nil": true,
}

// typeWords are the lower-case calls a schema declares a field with
// (Python's dataclasses field(...), SQLAlchemy's column(...)), and the
// lower-case values a call's named argument takes.
var typeWords = map[string]bool{
	"field": true, "column": true, "mapped_column": true, "true": true, "false": true,
}

// lowerWords reports whether v holds a word of lower-case letters (and
// _) that is no primitive type where a type's or a schema call's name is
// written: a union's member, a pointer's or an array's element, a
// generic's base or argument, a qualified name's last part, a call's
// name before its first "(", a named argument's value. password:
// sunshine_rainbow, *hunter_two, []hunter_two, List<hunter_two>,
// hunter.two;, hunter_two(), z.correct().horse(1) are values (red team
// rvg: only a union's whole members were read). A qualifier (z., typing.)
// is any word; a named argument's name, a quoted argument, a method
// chained after the first call (.min(12)) and a default (after a "=" out
// of a call) are not read.
func lowerWords(v string) bool {
	depth, calls := 0, 0
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(v[i+1:], '\'')
			if j < 0 {
				return false
			}
			i += j + 2
			continue
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				calls++
			}
		case c == '=' && depth == 0:
			return false // a default's value is no type
		case isLetter(c) || c == '_':
			j := i
			lower := true
			for j < len(v) && (isLetter(v[j]) || v[j] == '_') {
				lower = lower && (v[j] < 'A' || v[j] > 'Z')
				j++
			}
			w := v[i:j]
			k := skipTOMLSpace(v, j)
			free := !lower || primitives[w] || typeWords[w] ||
				j < len(v) && v[j] == '.' || // a qualifier
				calls > 0 || // a method chained after the first call
				depth > 0 && k < len(v) && v[k] == '=' // a named argument's name
			if !free {
				return true
			}
			i = j
			continue
		}
		i++
	}
	return false
}

// Only where a type is written: an unquoted value after a name and a
// colon (a configuration line's, a YAML plain scalar's). A JSON string, a
// quoted value, a value after "=", an element's text or an ENV line's
// value is a value: read as a type, "correct | horse | battery | staple"
// and "Open(Sesame 123)" went out unscanned under "password" (red team
// rve).

// typeText is a YAML plain scalar that reads as a type: written as it is
// in the text (as scanned), and not scanned under its name.
type typeText string

// typed reports whether x's value is written where a type may be.
func typed(x member) bool {
	if x.typed {
		return true
	}
	_, ok := x.value().(typeText)
	return ok
}

// typeAnnotation reports whether v (without the white space around it)
// reads as a type annotation or a schema's call (above).
func typeAnnotation(v string) bool {
	if len(v) < 2 || len(v) > 96 || !strings.ContainsAny(v, ";,<>[]|?=*(") {
		return false
	}
	if c := v[0]; c != '[' && c != '*' && c != '_' && (c|0x20 < 'a' || c|0x20 > 'z') {
		return false
	}
	return !lowerWords(v) && typeExpr.MatchString(v)
}
