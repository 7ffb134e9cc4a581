package possync

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestAgentStatsString(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 12, 30, 5, 123456789, time.UTC)
	tests := []struct {
		name string
		s    AgentStats
		want string
	}{
		{"zero", AgentStats{}, "queued 0, sent 0"},
		{"counters", AgentStats{Queued: 2, Sent: 10, Failed: 1, Retried: 3},
			"queued 2, sent 10, failed 1, retried 3"},
		{"payments", AgentStats{Sent: 1, PaymentsAccepted: 2},
			"queued 0, sent 1, payments saved 0, accepted 2"},
		{"times", AgentStats{LastPoll: at, LastHeartbeat: at.Add(-time.Minute)},
			"queued 0, sent 0, last poll 2026-01-02 12:30:05, last heartbeat 2026-01-02 12:29:05"},
		{"error", AgentStats{Retried: 1, LastError: errors.New("hospo: POST http://127.0.0.1:8080/v1/pos/push-pull/check: connection refused"), LastErrorAt: at},
			"queued 0, sent 0, retried 1, last error at 2026-01-02 12:30:05: hospo: POST http://127.0.0.1:8080/v1/pos/push-pull/check: connection refused"},
		{"joined error on one line", AgentStats{LastError: errors.Join(errors.New("a"), errors.New("b"))},
			"queued 0, sent 0, last error: a; b"},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
		// %v and Println print the same line, the monotonic clock reading
		// and the error's structure included nowhere.
		if got := fmt.Sprint(tt.s); got != tt.want {
			t.Errorf("%s: fmt.Sprint = %q", tt.name, got)
		}
	}
}
