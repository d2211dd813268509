package sqlstore

// WorldRowsDeletes are DeleteWorld's statements, for the query-plan test.
func WorldRowsDeletes() []string { return worldRowsDeletes }

// WorldRowsReads are WorldRows' statements, for the query-plan test.
func WorldRowsReads() []string { return worldRowsReads }
