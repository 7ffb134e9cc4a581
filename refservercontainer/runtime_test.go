package refservercontainer_test

import (
	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
)

// runtimeOptions are what the container runtimes of CI machines need: on
// some, podman's default open-file and process limits are too high for
// the runtime to set, and a container does not start without explicit
// ones. The sandbox needs far fewer of either.
func runtimeOptions() []testcontainers.ContainerCustomizer {
	return []testcontainers.ContainerCustomizer{
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.Ulimits = append(hc.Ulimits,
				&container.Ulimit{Name: "nofile", Soft: 4096, Hard: 4096},
				&container.Ulimit{Name: "nproc", Soft: 4096, Hard: 4096})
		}),
	}
}
