package doclinks

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the repository, from this package's directory.
const root = "../.."

// pages are the Markdown files whose links are checked.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md")
	}
	return append([]string{filepath.Join(root, "README.md")}, docs...)
}

var (
	fence      = regexp.MustCompile("^\\s*```")
	heading    = regexp.MustCompile(`^#{1,6} +(.+?)\s*#*\s*$`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	inlineLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]+)\)`)
)

// proseLine is a line of a page outside fenced code blocks, with its
// number in the page.
type proseLine struct {
	number int
	text   string
}

// prose returns a page's lines outside fenced code blocks.
func prose(text string) []proseLine {
	var out []proseLine
	inCode := false
	for i, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inCode = !inCode
			continue
		}
		if !inCode {
			out = append(out, proseLine{i + 1, line})
		}
	}
	return out
}

// slug is the anchor GitHub gives a heading's text: lower case, without
// punctuation (letters, digits, spaces, hyphens and underscores stay),
// spaces turned into hyphens.
func slug(text string) string {
	text = inlineLink.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns a page's heading anchors; a repeated heading gets -1,
// -2, … as on GitHub.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range prose(text) {
		m := heading.FindStringSubmatch(line.text)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ heading, want string }{
		{"Quick start", "quick-start"},
		{"`slashd invoke`", "slashd-invoke"},
		{"discord.js on its guide's path", "discordjs-on-its-guides-path"},
		{"Who may see and use a command (contexts, installations, permissions v2)", "who-may-see-and-use-a-command-contexts-installations-permissions-v2"},
		{"Interactions: answers, follow-ups, messages", "interactions-answers-follow-ups-messages"},
		{"Request Guild Members (op 8)", "request-guild-members-op-8"},
		{"A [linked](x.md) heading", "a-linked-heading"},
	} {
		if got := slug(c.heading); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

func TestAnchorsOfRepeatedHeadings(t *testing.T) {
	t.Parallel()
	got := anchors("# A\n\n## Errors\n\n```sh\n# not a heading\n```\n\n## Errors\n")
	for _, want := range []string{"a", "errors", "errors-1"} {
		if !got[want] {
			t.Errorf("anchors lack %q: %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a comment in a code block became an anchor")
	}
}

// TestLinks: every relative link of the README and docs/ reaches a file,
// and its fragment a heading of that file.
func TestLinks(t *testing.T) {
	t.Parallel()
	texts := map[string]string{}
	read := func(path string) (string, error) {
		if text, ok := texts[path]; ok {
			return text, nil
		}
		raw, err := os.ReadFile(path)
		texts[path] = string(raw)
		return string(raw), err
	}
	checked := 0
	for _, page := range pages(t) {
		text, err := read(page)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, page)
		for _, line := range prose(text) {
			for _, m := range inlineLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line.text, ""), -1) {
				target := m[2]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				file, fragment, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: %s: no such file", name, line.number, target)
					continue
				}
				if fragment == "" || !strings.HasSuffix(path, ".md") {
					continue
				}
				linked, err := read(path)
				if err != nil {
					t.Fatal(err)
				}
				if !anchors(linked)[fragment] {
					t.Errorf("%s:%d: %s: no heading makes #%s", name, line.number, target, fragment)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the pages were not read")
	}
}
