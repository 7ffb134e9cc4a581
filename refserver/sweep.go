package refserver

import (
	"context"
	"log/slog"
	"time"
)

// sweep deletes the rows past their retention every Config.SweepInterval,
// and at once when the virtual clock moves (wakeSweep), until ctx ends. The
// retention sweep is the one place such rows go: a request never pays for
// deleting what others left behind.
func (s *Server) sweep(ctx context.Context) {
	t := time.NewTicker(s.cfg.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.sweepNow:
		}
		start := time.Now()
		st, err := s.db.Sweep(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("retention sweep failed", slog.Any("error", err))
			}
			continue
		}
		s.log.Debug("retention sweep", slog.Any("deleted", st.Deleted),
			slog.Int("transactions", st.Transactions), slog.Duration("took", time.Since(start)))
	}
}

// wakeSweep makes the sweeper run now: the virtual clock moved, and rows
// may have passed their retention. It never blocks.
func (s *Server) wakeSweep() {
	select {
	case s.sweepNow <- struct{}{}:
	default:
	}
}
