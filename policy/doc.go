// Package policy parses, validates and evaluates AIP v1alpha1 AgentPolicy
// documents: which JSON-RPC methods an agent may send, which tools it may
// call, with which arguments, and which paths it may never touch.
//
// Compile once with [Parse] or [Load], then call [Policy.Evaluate] for every
// request. Evaluate is pure: it does no I/O, reads no clock, logs nothing,
// and returns a [Decision] value (a deny is a value, not an error). Tool
// authors can use it directly in their unit tests; see package policytest.
//
// # Semantics
//
// Evaluation follows AIP §4.2 (methods) and §4.3 (tools), with these
// decisions where the spec leaves room (each has a named test):
//
//   - Names are normalized with [normalize.Name] (NFKC, full case folding,
//     invisible runes removed, trimmed). The method that decides whether
//     tool checks run is the normalized one, so "ｔｏｏｌｓ/ｃａｌｌ" gets them.
//   - Methods: denied_methods first, then "*" or allowed_methods; without
//     allowed_methods, [DefaultAllowedMethods] (AIP §3.4.3 plus
//     server/discover, subscriptions/listen, notifications/cancelled).
//   - Protected paths (§3.4.5, §8.1) are found anywhere in any string
//     argument, in map keys and nested values, after percent decoding,
//     Unicode normalization, quote removal, "~"/"$HOME" expansion and
//     ".."/"."/"//" resolution against the working directory captured at
//     load. Matching is case-insensitive and component-aligned: ".env"
//     catches "/app/.env" but not ".env.example". Shell spellings count
//     too: wildcards ("/etc/shado?", ".e[n]v", "~/.*/id_rsa"; a leading
//     wildcard does not match a dot file, as in a shell), "~user" for the
//     home directory's own user, "$IFS", an option with its value attached
//     ("-i/home/u/.ssh/id"), and relative paths are also read from the
//     home directory ("cd ~ && cat .ssh/id_rsa"). [Load] protects the
//     policy file itself, by its absolute and its resolved path.
//   - A tool_rules entry with action allow makes a tool allowed even when
//     allowed_tools does not list it (AIP §5.2, vector auth-020).
//   - strict_args (or strict_args_default) rejects every argument that
//     allow_args does not declare, also when allow_args is empty, and also
//     for tools allowed only through allowed_tools.
//   - Monitor mode (§4.4): a BLOCK comes back as Allow with Violation set
//     (logged as ALLOW_MONITOR); protected paths and rate limits stay
//     enforced; an ask rule still asks, even when its arguments fail.
//   - STRING() of §4.5 keeps json.Number text verbatim ("1.50" stays
//     "1.50"); arrays and objects are JSON with sorted keys and no HTML
//     escaping.
//   - Regexes are RE2 (linear time). Patterns are bounded by
//     [MaxPatternLen] and matched values by [MaxArgLen]; nothing valid is
//     rejected by heuristics.
//
// Rate limits are parsed at load and returned by [Policy.RateLimit]; the
// caller enforces them first (§4.3 step 1) and reports a refusal with
// [RateLimitedDecision].
//
// # Security
//
// Every path out of Evaluate that is not an explicit allow is a deny: a nil
// *Policy blocks everything, the zero [Decision] is Block, values that have
// no JSON form or nest deeper than 64 levels are denied. [Decision.Reason]
// names rules and argument names but never a regex or an argument value,
// so it can be shown to the agent; [Decision.FailedRule] carries the regex
// for the operator's audit log only.
//
// Look-alike letters from other scripts are not folded (NFKC does not map
// them), so allowlists are the safe way to write policies: a Cyrillic
// "rеad_file" is simply not "read_file".
//
// Protected paths are matched lexically. Symbolic links inside arguments
// are not resolved (that would need a system call per request); protect the
// link targets too. A bare word such as "notes.txt" is only matched against
// protected paths below the working directory, so protecting "~" does not
// block every word of every argument.
//
// # Concurrency
//
// A *Policy is immutable after Parse or Load and safe for concurrent use by
// any number of goroutines.
//
// # Usage
//
//	p, err := policy.Load("policy.yaml")
//	if err != nil { ... }
//	d := p.Evaluate(policy.Request{Method: "tools/call", Tool: name, Args: args})
//	if d.Outcome != policy.Allow { return d.Code, d.Message, d.Reason }
package policy
