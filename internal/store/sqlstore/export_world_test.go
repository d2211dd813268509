package sqlstore

// WorldRowsDeletes are DeleteWorld's statements, for the query-plan test.
func WorldRowsDeletes() []string { return worldRowsDeletes }
