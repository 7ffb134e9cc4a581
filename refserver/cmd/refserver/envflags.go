package main

import (
	"flag"
	"fmt"
	"strings"
)

// envPrefix starts the name of the environment variable that stands in for
// a flag: -admin-key is REFSERVER_ADMIN_KEY. A container is configured by
// its environment far more easily than by its command line (compose files,
// CI "services:" blocks and testcontainers all set variables), so every
// flag can come from there.
const envPrefix = "REFSERVER_"

// notFromEnv are the flags that do something other than configure the
// server, which a variable left in an environment must not trigger.
var notFromEnv = map[string]bool{"version": true}

// envName is the environment variable of the flag named name.
func envName(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// setFromEnv gives each flag of fs that the command line did not set the
// value of its environment variable, when lookup finds one. It runs after
// fs.Parse, so the command line wins however the two are ordered, and a
// list flag (-admin-host) is never given both. An invalid value is an
// error naming the variable.
func setFromEnv(fs *flag.FlagSet, lookup func(string) (string, bool)) error {
	onCommandLine := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { onCommandLine[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil || onCommandLine[f.Name] || notFromEnv[f.Name] {
			return
		}
		v, ok := lookup(envName(f.Name))
		if !ok {
			return
		}
		if serr := fs.Set(f.Name, v); serr != nil {
			err = fmt.Errorf("%s=%q (for -%s): %w", envName(f.Name), v, f.Name, serr)
		}
	})
	return err
}

// envUsage is the note under the flag list of -help.
func envUsage(fs *flag.FlagSet) {
	out := fs.Output()
	fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
	fs.PrintDefaults()
	fmt.Fprintf(out, "\nEvery flag but -version can also be set by an environment variable named %s and the flag\n"+
		"in upper snake case (-admin-key: %s); a flag on the command line wins over its variable.\n",
		envPrefix, envName("admin-key"))
}
