package sqlstore
func WorldRowsDeletes() []string { return worldRowsDeletes }
