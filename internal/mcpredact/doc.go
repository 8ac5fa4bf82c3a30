// Package mcpredact redacts secrets from every value a guarded MCP server
// sends: the results of its handlers ([Result]), their errors ([Error]) and
// the requests and notifications the server sends to the client on its own
// ([Outgoing]: log messages, progress, sampling, elicitation, and any method
// go-sdk adds). It uses one [dlp.Scanner] for all of them.
//
// # How
//
// A value is marshalled to the JSON it will go out as and walked as a tree:
// every string and every object key is scanned, at any depth, so `_meta`
// (of the result, of each content item, of nested resources), URIs, names,
// titles, descriptions, structured content, input requests and whatever
// fields go-sdk adds are covered without a list of fields that could fall
// behind. Numbers are scanned too. Base64 payloads (the "data" of image and
// audio content, the "blob" of resource contents, an object with "uri") are decoded and the
// decoded bytes are scanned; a payload that holds a secret is redacted and
// re-encoded; so is a result's requestState when it is base64 (a
// server's opaque state). A URL in any string (a resource link's URI, an
// elicitation's URL, a link in a text) is also read percent-decoded,
// whatever detect_encoding says, since a URL has no other spelling: every
// run between white space that holds a %XX or %uXXXX (a URL with or
// without a scheme, a path), each of its parameters' values alone too,
// the text read decoded whole (a secret white space splits into runs),
// and the texts of a content array decoded and joined; a secret found
// decoded is cut out of the URL as written (uri.go). A
// handler's error text is read as a result's strings are. The texts of
// the items of one content array (text content,
// embedded resource text, prompt and sampling message text) are also scanned
// joined, with [dlp.Scanner.RedactParts], so a secret split across two items
// is found and each item loses its share. So are the string elements of any
// array (the lines of a file as ["-----BEGIN ...", "MIIE...", ...]) and the
// string values under one key across the objects of an array ([{"line":
// ...}, {"line": ...}]). The data values of a Kubernetes Secret object
// (kind "Secret": base64 of anything) are each scanned inside a minimal
// Secret manifest, so the scanner's rule for Secrets sees their context.
// Members whose names say they hold a credential are scanned with their
// names, then under the canonical name of what the name says (named.go,
// credname.go), so that every spelling of the name reaches the scanner's
// generic rules; so are the cells of a table under a credential-named
// column (tables.go). A string that is a JSON document, or whose lines end
// in JSON objects (NDJSON, a log line's payload), is walked as a tree too
// (jsontext.go): a tool's JSON output sent as text is read with its names
// as structured content is, every document of a line (after one that
// does not parse too) and a document cut short (closed where it stops:
// jsonlines.go); so is a table sent as text (CSV with RFC 4180
// quoting, TSV, Markdown, psql's output: texttable.go), whose header
// names a column; YAML whose keys may name a credential (a manifest's
// env list, "- {name: API_KEY, value: ...}", block scalars, in a Markdown
// fence or around lines of prose too: yamltext.go), read with
// go.yaml.in/yaml/v4 and its redacted values written back in place,
// double-quoted; and the lines of configuration text that assign a value
// to a credential's name (properties, INI, TOML, .env, YAML indented with
// tabs: assign.go), with the calls' arguments, options (also unquoted
// inside a quoted variable: JAVA_OPTS), heredocs, declarations (several
// on a line: ENV A=1 PW=...; Dockerfile's ENV NAME value), directives
// (nginx's set $pw "...";, proxy_set_header Authorization "...";), a
// quoted NAME="value" or "NAME=value" anywhere on a line (DB_PW="..."
// ./run.sh, docker -e, helm --set; a quoted name, $'...', \"...\", each
// pair of a quoted list: "Server=db;Password=...;"), XML
// elements and attributes (a value element before or after its name
// element, markup escaped in a value: &lt;password&gt;) and TOML's inline
// tables, arrays and multi-line strings. A text in which these readings
// find more than 2048 credential-named values (per result) is withheld
// whole as "[REDACTED:too-many-credential-values]": each value costs the
// rules a match (a URL's decoded text spends the same budget). A value
// that reads as a type where a type is written (unquoted after a colon:
// password: string;, with no lower-case word but a primitive's, a
// qualifier, a named argument's or a chained method's) is not scanned
// under its name (typeexpr.go), and a value of words under a
// name whose head word is "secret" is read as a password's, one that
// starts with an HTTP authentication scheme ("Basic ...") as an
// Authorization header's. A JSON or YAML object with two members of one name is
// read as the first reader and the last one see it, each other duplicate
// under its name (dupdoc.go). A value is scanned with its name without
// the white space around it, with a double quote in it read as a single
// one (a redacted value keeps the single quotes), and, written over lines
// of one word each (a block scalar), as the one word. Documents in
// strings are opened sixteen deep (JSON's escapes double at each level:
// 2^16 backslashes) within a budget of eight times the text and 1 MiB; a
// string past either that may hold a document naming a credential is
// withheld whole as "[REDACTED:nested-document]"; so is a text whose
// tables may hold quoted cells once their reading budget is spent. YAML
// is read in every spelling its parser reads (flow sequences and flow
// style, complex keys, tags, anchors and aliases, lines ended by CR, NEL,
// LS or PS: yamlspell.go). A value under a password's name whose bounds
// a reading knows (a JSON member, a YAML scalar, a configuration line)
// and that holds spaces ("correct horse battery staple", "Fake
// Pa55word!") is scanned with its words joined, unless a word of it is
// one of prose ("see the vault": passphrase.go); one of one word longer
// than the rules' quoted values is scanned by its first 120 bytes and
// redacted whole, and a text rule's long match that stops inside a word
// takes the rest of the word (longvalue.go). A name for a setting about
// a credential or its identifier (pw_type, privKeyId) is read as such,
// and the scanner redacts its value unless it reads as a setting or an
// identifier (settings.go). Still left to the text rules alone (red teams
// rtr, rtu): YAML that neither parses nor sits in a fence or around one
// line of prose, an alias of a YAML collection, an assignment whose
// value reads as code (a call, an index, a statement), a properties line
// whose name and value a space separates ("db.pw ..."), a name longer
// than 128 bytes, and an unquoted value in a line no reading takes for
// YAML or an assignment ("> X-Api-Key: ...", as curl -v prints it),
// which ends at the first byte outside the rules' token alphabet.
//
// When nothing is found the original value is returned as it is. When
// something is, the redacted tree is decoded into a new value of the same
// type: the handler's values are never changed.
//
// # Security
//
// The functions fail closed: a value that cannot be marshalled, a payload
// that is not valid base64 (unless [Options].Undecodable says to scan it as
// text), or a redacted tree that no longer decodes into its type is an
// error, and the caller must withhold the value. Findings hold rule names
// and counts, never secret material.
//
// # Concurrency
//
// The functions hold no state and are safe for concurrent use.
package mcpredact
