package sqlstore

import "strings"

// MigrationStatements splits a migration file into its statements (each
// ends with ";" at the end of a line), leaving out those that are only
// comments. Both backends apply their migrations with it.
func MigrationStatements(body string) []string {
	var out []string
	for _, stmt := range strings.Split(body, ";\n") {
		if strings.TrimSpace(stripComments(stmt)) != "" {
			out = append(out, stmt)
		}
	}
	return out
}

func stripComments(stmt string) string {
	var b strings.Builder
	for _, line := range strings.Split(stmt, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
