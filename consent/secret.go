package consent

import "log/slog"

// Secret holds a credential (webhook secret, bot token). Printing it with
// fmt, logging it with slog or marshalling it to JSON shows "[REDACTED]";
// only an explicit string(s) conversion reveals it.
type Secret string

const redacted = "[REDACTED]"

// String returns "[REDACTED]".
func (Secret) String() string { return redacted }

// GoString returns "[REDACTED]".
func (Secret) GoString() string { return redacted }

// LogValue returns "[REDACTED]".
func (Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON returns "[REDACTED]" as a JSON string.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }
