package refserver

import (
	"embed"
	"html/template"
	"strings"
)

// consoleFiles holds the console's templates and static files, embedded
// so that the binary serves the console without a build step or a CDN.
//
//go:embed console/templates/*.html console/static/*
var consoleFiles embed.FS

// consoleTemplates maps a page name to its template set: the shared
// layout (console/templates/layout.html) plus the page's own file, which
// defines "content" (the page's body) and "live" (the part that its
// script refreshes). "layout" alone is the set of the status line.
var consoleTemplates = parseConsoleTemplates()

// consolePageFiles are the templates besides the layout, by page name.
var consolePageFiles = []string{"login", "error", "locations", "location", "users", "requests", "controls"}

func parseConsoleTemplates() map[string]*template.Template {
	funcs := template.FuncMap{"lower": strings.ToLower}
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(consoleFiles, "console/templates/layout.html"))
	sets := map[string]*template.Template{"layout": base}
	for _, name := range consolePageFiles {
		t := template.Must(base.Clone())
		sets[name] = template.Must(t.ParseFS(consoleFiles, "console/templates/"+name+".html"))
	}
	return sets
}
