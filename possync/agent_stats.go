package possync

import (
	"strconv"
	"strings"
	"time"
)

// AgentStats is a snapshot of an Agent's work, for a POS status screen or
// monitoring.
type AgentStats struct {
	// Queued is the number of distinct checks waiting for delivery,
	// in-flight ones included.
	Queued int
	// Sent counts checks delivered.
	Sent uint64
	// Failed counts checks the service refused for good (a 4xx such as a
	// validation error) and that were dropped.
	Failed uint64
	// Retried counts deliveries that failed for a temporary reason (service
	// unreachable, 5xx, 429) and were rescheduled.
	Retried uint64
	// PaymentsSaved counts successful SavePayment calls.
	PaymentsSaved uint64
	// PaymentsAccepted counts payments accepted at the service.
	PaymentsAccepted uint64
	// LastPoll is the time of the last successful payments poll.
	LastPoll time.Time
	// LastHeartbeat is the time of the last successful heartbeat.
	LastHeartbeat time.Time
	// LastError is the most recent error of any kind; nil before the first.
	LastError error
	// LastErrorAt is when LastError happened.
	LastErrorAt time.Time
}

// Stats returns a snapshot of the agent's counters.
func (a *Agent) Stats() AgentStats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stats
}

// String returns the stats on one short line, for a log or a status
// screen: queued and sent always, the other counters when not zero, the
// times that are set (to the second) and the last error, for example
//
//	queued 2, sent 10, retried 3, last heartbeat 2026-01-01 12:00:00, last error at 2026-01-01 12:00:05: hospo: ...
func (s AgentStats) String() string {
	var b strings.Builder
	b.WriteString("queued ")
	b.WriteString(strconv.Itoa(s.Queued))
	b.WriteString(", sent ")
	b.WriteString(strconv.FormatUint(s.Sent, 10))
	count := func(name string, n uint64) {
		if n != 0 {
			b.WriteString(", " + name + " ")
			b.WriteString(strconv.FormatUint(n, 10))
		}
	}
	count("failed", s.Failed)
	count("retried", s.Retried)
	if s.PaymentsSaved != 0 || s.PaymentsAccepted != 0 {
		b.WriteString(", payments saved ")
		b.WriteString(strconv.FormatUint(s.PaymentsSaved, 10))
		b.WriteString(", accepted ")
		b.WriteString(strconv.FormatUint(s.PaymentsAccepted, 10))
	}
	at := func(name string, t time.Time) {
		if !t.IsZero() {
			b.WriteString(", " + name + " ")
			b.WriteString(t.Format(time.DateTime))
		}
	}
	at("last poll", s.LastPoll)
	at("last heartbeat", s.LastHeartbeat)
	if s.LastError != nil {
		if s.LastErrorAt.IsZero() {
			b.WriteString(", last error")
		} else {
			at("last error at", s.LastErrorAt)
		}
		b.WriteString(": ")
		// An errors.Join spans lines; the stats stay on one.
		b.WriteString(strings.ReplaceAll(s.LastError.Error(), "\n", "; "))
	}
	return b.String()
}
