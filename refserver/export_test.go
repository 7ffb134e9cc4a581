package refserver

// FeedWaits returns how many event feed requests are waiting for events.
func (s *Server) FeedWaits() int64 { return int64(s.feedWaits.count()) }
