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
// keeps its copy). A [*Writer] after the first sink is asked first whether
// it would refuse the event before writing anything ([ErrArgs],
// [ErrEventTooLong]: the caller then writes it again without what was
// refused), so that no sink keeps a copy of an event written twice. Sinks
// after the first see the event with the chain fields the first one set.
func Tee(sinks ...Sink) Sink { return tee(append([]Sink(nil), sinks...)) }

type tee []Sink

func (t tee) Write(ctx context.Context, e *Event) error {
	for i, s := range t {
		if w, ok := s.(*Writer); ok && i > 0 {
			if err := w.check(e); err != nil {
				return err
			}
		}
	}
	for _, s := range t {
		if err := s.Write(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

var _ Sink = tee(nil)
