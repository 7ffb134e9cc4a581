package console

import (
	"embed"
	"html/template"
	"strings"
)

// files holds the console's templates and static files, embedded so that
// the binary serves the console without a build step or a CDN.
//
//go:embed templates/*.html static/*
var files embed.FS

// templates maps a page name to its template set: the shared layout
// (templates/layout.html) plus the page's own file, which defines
// "content" (the page's body) and "live" (the part that its script
// refreshes). "layout" alone is the set of the status line.
var templates = parseTemplates()

// pageFiles are the templates besides the layout, by page name.
var pageFiles = []string{"login", "error", "locations", "location", "users", "requests", "events", "webhooks", "webhook", "controls"}

func parseTemplates() map[string]*template.Template {
	funcs := template.FuncMap{"lower": strings.ToLower}
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html"))
	sets := map[string]*template.Template{"layout": base}
	for _, name := range pageFiles {
		t := template.Must(base.Clone())
		sets[name] = template.Must(t.ParseFS(files, "templates/"+name+".html"))
	}
	return sets
}
