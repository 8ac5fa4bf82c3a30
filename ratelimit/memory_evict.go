package ratelimit

import (
	"hash/maphash"
	"slices"
	"time"
)

// Conversations with committed steps are never forgotten before their TTL:
// forgetting one would let its steps be replayed. When MaxConversations is
// reached by many identities (client names are self-declared, so an
// attacker can be many), the least recently active conversations are
// evicted instead, each leaving a tombstone: a 64-bit hash of its scope
// and its expiry, about 60 bytes where the conversation took about 300. A
// conversation whose tombstone is live is refused at every step, step 1
// included, with CodeStateLost ("start a new conversation"): its owner
// loses the conversation, never its replay protection. Tombstones are
// kept in a ring per shard, up to tombsPerConv times the shard's
// conversation cap; one is overwritten only once it has expired, and when
// none can be, new conversations are refused with a [*CapacityError].

// tombsPerConv sizes the tombstone rings: with the default cap, 400,000
// evicted conversations (about 24 MB) before refusals.
const tombsPerConv = 4

// tombRing holds one shard's tombstones; it grows to size entries, then
// wraps around.
type tombRing struct {
	size    int
	hashes  []uint64
	expires []int64 // UnixNano
	next    int
	live    map[uint64]int64 // hash -> expiry, for lookups
}

func (r *tombRing) init(n int) {
	r.size = n
	r.live = make(map[uint64]int64)
}

// has reports whether h has a live tombstone at now.
func (r *tombRing) has(h uint64, now time.Time) bool {
	exp, ok := r.live[h]
	return ok && now.UnixNano() < exp
}

// add records h until exp, unless the slot it would overwrite is still
// live; it reports whether it did.
func (r *tombRing) add(h uint64, exp, now time.Time) bool {
	if r.size == 0 {
		return false
	}
	if len(r.hashes) < r.size {
		r.hashes, r.expires = append(r.hashes, h), append(r.expires, exp.UnixNano())
		r.live[h] = exp.UnixNano()
		return true
	}
	i := r.next
	old := r.expires[i]
	if now.UnixNano() < old {
		return false
	}
	if r.live[r.hashes[i]] == old {
		delete(r.live, r.hashes[i])
	}
	r.hashes[i], r.expires[i] = h, exp.UnixNano()
	r.live[h] = exp.UnixNano()
	r.next = (i + 1) % r.size
	return true
}

// blockedUntil is when the slot add would overwrite next frees up.
func (r *tombRing) blockedUntil() time.Time {
	if len(r.hashes) < r.size {
		return time.Time{}
	}
	return time.Unix(0, r.expires[r.next])
}

func (s *MemoryStore) scopeHash(scope string) uint64 { return maphash.String(s.seed, "conv\x00"+scope) }

// evictConvs makes room in a full shard (locked): idle conversations first
// (lossless), then the least recently active ones without a live
// reservation, each leaving a tombstone, up to an eighth of the shard. It
// reports whether it freed anything.
func (s *MemoryStore) evictConvs(sh *convShard, now time.Time) bool {
	type cand struct {
		k   string
		c   *conversation
		exp time.Time
	}
	if now.Before(sh.nextEvict) {
		return false
	}
	var cs []cand
	for k, c := range sh.m {
		if c.idle(now) {
			s.dropConv(sh, k, c)
			continue
		}
		if len(c.inflight) == 0 {
			cs = append(cs, cand{k, c, c.expires})
		}
	}
	if len(sh.m) < s.convCap {
		return true
	}
	slices.SortFunc(cs, func(a, b cand) int { return a.exp.Compare(b.exp) })
	freed := false
	for i := 0; i < len(cs) && i < max(1, s.convCap/8); i++ {
		if !sh.tombs.add(s.scopeHash(cs[i].k), cs[i].exp, now) {
			break
		}
		s.dropConv(sh, cs[i].k, cs[i].c)
		freed = true
	}
	if !freed {
		// Nothing changes before a tombstone or a reservation expires.
		sh.nextEvict = now.Add(sweepEvery)
		if len(cs) > 0 {
			sh.nextEvict = sh.tombs.blockedUntil()
		}
	}
	return freed
}
