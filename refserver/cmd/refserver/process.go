package main

import (
	"bytes"
	"context"
	"os"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// recordProcessMetrics reports the process's CPU time, resident memory
// and open files (OpenTelemetry's process.* semantic conventions) to mp.
// They are read from /proc at each collection, so where there is no /proc
// (not Linux) they are simply absent.
func recordProcessMetrics(mp metric.MeterProvider) error {
	m := mp.Meter("github.com/hospo-dev/hospo-go/refserver/cmd/refserver")
	cpu, err := m.Float64ObservableCounter("process.cpu.time", metric.WithUnit("s"),
		metric.WithDescription("Total CPU seconds broken down by different CPU modes."))
	if err != nil {
		return err
	}
	rss, err := m.Int64ObservableUpDownCounter("process.memory.usage", metric.WithUnit("By"),
		metric.WithDescription("The amount of physical memory in use."))
	if err != nil {
		return err
	}
	fds, err := m.Int64ObservableUpDownCounter("process.unix.file_descriptor.count", metric.WithUnit("{file_descriptor}"),
		metric.WithDescription("Number of unix file descriptors in use by the process."))
	if err != nil {
		return err
	}
	user := metric.WithAttributes(attribute.String("cpu.mode", "user"))
	system := metric.WithAttributes(attribute.String("cpu.mode", "system"))
	_, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		if u, s, ok := procCPUSeconds(); ok {
			o.ObserveFloat64(cpu, u, user)
			o.ObserveFloat64(cpu, s, system)
		}
		if b, ok := procRSSBytes(); ok {
			o.ObserveInt64(rss, b)
		}
		if entries, err := os.ReadDir("/proc/self/fd"); err == nil {
			o.ObserveInt64(fds, int64(len(entries)))
		}
		return nil
	}, cpu, rss, fds)
	return err
}

// clockTicks is the unit of the CPU times in /proc/self/stat (USER_HZ),
// 100 on every Linux platform Go supports.
const clockTicks = 100

// procCPUSeconds reads the process's user and system CPU time from
// /proc/self/stat.
func procCPUSeconds() (user, system float64, ok bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name, in parentheses, may hold spaces: count the fields
	// after its closing parenthesis. utime and stime are fields 14 and 15
	// of the line, 12 and 13 after the name.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, 0, false
	}
	u, err1 := strconv.ParseUint(string(f[11]), 10, 64)
	s, err2 := strconv.ParseUint(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return float64(u) / clockTicks, float64(s) / clockTicks, true
}

// procRSSBytes reads the process's resident set size from
// /proc/self/statm (its second field, in pages).
func procRSSBytes() (int64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}
