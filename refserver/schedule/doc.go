// Package schedule is the one home of the work the sandbox's virtual
// clock drives: the diners' rounds, locations going offline, the
// retention sweep, and, through outbound's dispatchers and monitor,
// webhook retries, order resends and the universal POS checks.
//
// A Scheduler runs each Job in a goroutine of its own: the job does what
// is due and says when it is due next on the virtual clock; the scheduler
// sleeps until then, or until something wakes it (new work, or the clock
// moved). Every run is one root span named after its job.
//
// CatchUp is how POST /sandbox/clock waits: it returns once every job has
// done what the new time made due, and what that work made due in turn,
// so that a test reads the outcome of an advance at once:
//
//	s := schedule.New(schedule.Config{Now: clock.Now})
//	diners := s.Add(schedule.Diners(db, clock.Now, log))
//	go s.Run(ctx)
//	diners.Wake()           // a location's diners were set
//	clock.SetOffset(offset) // the clock jumped...
//	err := s.CatchUp(ctx)   // ...and the world has caught up
package schedule
