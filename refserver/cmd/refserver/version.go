package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version and commit are stamped in by the release build:
//
//	-ldflags "-X main.version=v1.2.3 -X main.commit=0123abc"
//
// A build without them (go run, go build, go install) falls back to what
// the Go toolchain recorded: the module version and the VCS revision.
var (
	version = ""
	commit  = ""
)

// versionLine is what -version prints: the version, the commit and the Go
// toolchain, which a bug report needs to reproduce a build.
func versionLine() string {
	v, c, dirty := version, commit, false
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if c == "" {
					c = s.Value
				}
			case "vcs.modified":
				dirty = s.Value == "true" && commit == ""
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if c == "" {
		c = "unknown"
	} else if dirty {
		c += "-dirty"
	}
	return fmt.Sprintf("refserver %s commit %s %s %s/%s", v, c, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
