package console

import "testing"

// Every page's templates parse and define what the console executes.
func TestTemplatesDefineEveryPart(t *testing.T) {
	t.Parallel()
	for _, name := range pageFiles {
		for _, part := range []string{"layout", "content", "live", "status"} {
			if templates[name].Lookup(part) == nil {
				t.Errorf("page %s has no template %q", name, part)
			}
		}
	}
}
