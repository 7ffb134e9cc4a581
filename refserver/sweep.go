package refserver

import (
	"context"
	"log/slog"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/internal/wake"
)

// sweep deletes the rows past their retention every Config.SweepInterval,
// and at once when the virtual clock moves (Server.clockMoved), until ctx
// ends. The retention sweep is the one place such rows go: a request never
// pays for deleting what others left behind.
func (s *Server) sweep(ctx context.Context) {
	wake.Loop(ctx, s.sweepNow, func(ctx context.Context) time.Duration {
		start := time.Now()
		st, err := s.db.Sweep(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("retention sweep failed", slog.Any("error", err))
			}
		} else {
			s.log.Debug("retention sweep", slog.Any("deleted", st.Deleted),
				slog.Int("transactions", st.Transactions), slog.Duration("took", time.Since(start)))
		}
		return s.cfg.SweepInterval
	})
}
