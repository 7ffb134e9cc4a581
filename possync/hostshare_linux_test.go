package possync_test

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// stealMillis returns the CPU time the hypervisor has taken from this
// guest's virtual CPUs since boot (the steal column of /proc/stat's "cpu"
// line, in USER_HZ ticks, which Linux fixes at 100 a second for user
// space), and whether it could be read. A benchmark reads it before and
// after its timed loop: steal during a run is time no program in the guest
// could have used, and so a latency no change to the program removes.
func stealMillis() (int64, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	// cpu user nice system idle iowait irq softirq steal ...
	if len(f) < 9 || string(f[0]) != "cpu" {
		return 0, false
	}
	ticks, err := strconv.ParseInt(string(f[8]), 10, 64)
	if err != nil {
		return 0, false
	}
	return ticks * 10, true
}

// involuntarySwitches returns how many times the operating system has taken
// a CPU from one of this process's threads while it could still run, and
// whether it could be read.
func involuntarySwitches() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Nivcsw, true
}

// readThreadUsage returns the calling thread's usage, and whether it could
// be read. Lock the goroutine to its thread to compare two readings. The
// CPU time is the thread's clock (CLOCK_THREAD_CPUTIME_ID), exact to the
// nanosecond: getrusage's is counted in scheduler ticks, 4 ms apart.
func readThreadUsage() (threadUsage, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return threadUsage{}, false
	}
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return threadUsage{}, false
	}
	return threadUsage{cpu: time.Duration(ts.Nano()), voluntary: ru.Nvcsw, involuntary: ru.Nivcsw}, true
}

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID.
const clockThreadCPUTime = 3
