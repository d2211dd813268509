package main

// "Did you mean …?": the names closest to a mistyped command, verb or
// flag.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// suggest returns the candidates typed may be a typo of, closest first
// (at most three): those within an edit distance of 1 (2 when typed is
// longer than 4 characters; a swap of two neighbours counts 1), and
// those typed begins (3 characters or more).
func suggest(typed string, candidates []string) []string {
	typed = strings.ToLower(typed)
	n := utf8.RuneCountInString(typed)
	limit := 1
	if n > 4 {
		limit = 2
	}
	type near struct {
		name string
		d    int
	}
	var found []near
	for _, c := range candidates {
		d := editDistance(typed, strings.ToLower(c))
		switch {
		case d == 0:
			continue
		case d <= limit:
			found = append(found, near{c, d})
		case n >= 3 && strings.HasPrefix(strings.ToLower(c), typed):
			found = append(found, near{c, limit + 1})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return cmp.Or(cmp.Compare(a.d, b.d), strings.Compare(a.name, b.name)) })
	out := make([]string, 0, 3)
	for _, f := range found {
		if len(out) == 3 {
			break
		}
		if !slices.Contains(out, f.name) {
			out = append(out, f.name)
		}
	}
	return out
}

// didYouMean is "; did you mean X?" for the suggestions of typed, each
// written by quote, or "" when there are none.
func didYouMean(typed string, candidates []string, quote func(string) string) string {
	return meanList(suggest(typed, candidates), quote)
}

// meanList is "; did you mean A, B or C?" for names s, each written by
// quote, or "" when s is empty.
func meanList(s []string, quote func(string) string) string {
	if len(s) == 0 {
		return ""
	}
	s = slices.Clone(s)
	for i := range s {
		s[i] = quote(s[i])
	}
	list := s[0]
	if len(s) > 1 {
		list = strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
	}
	return "; did you mean " + list + "?"
}

// quoted writes a name as Go does with %q.
func quoted(s string) string { return fmt.Sprintf("%q", s) }

// editDistance is the optimal string alignment distance between a and
// b, in runes: insertions, deletions, substitutions and swaps of two
// neighbours, each costing 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows of the table: two back (for swaps), the last, this one.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
