package audit

import "context"

// Sink receives audit events: the gatehouse Guard writes every decision and
// redaction to one. [*Writer] (the hash-chained file) is the implementation
// the project ships; another Sink can send the same events elsewhere, or
// [Tee] can send them to a Writer and elsewhere at once.
//
// Write must return only when the event is durable wherever the Sink keeps
// it: the Guard denies a call whose decision could not be written. Write
// may set the chain fields of e (Seq, Timestamp, hashes), as Writer does.
// Implementations must be safe for concurrent use.
type Sink interface {
	Write(ctx context.Context, e *Event) error
}

var _ Sink = (*Writer)(nil)

// Tee returns a Sink that writes each event to every sink in order and
// stops at the first error, which it returns: an event is written
// everywhere or the write fails (a sink that wrote before the failing one
// keeps its copy). Sinks after the first see the event with the chain
// fields the first one set.
func Tee(sinks ...Sink) Sink { return tee(append([]Sink(nil), sinks...)) }

type tee []Sink

func (t tee) Write(ctx context.Context, e *Event) error {
	for _, s := range t {
		if err := s.Write(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

var _ Sink = tee(nil)
