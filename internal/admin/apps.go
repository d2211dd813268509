package admin

// MinAppName is the shortest application name; the longest is
// MaxUsername, since the bot user takes the app's name.
const MinAppName = 2

// AppRequest is an application to create.
type AppRequest struct {
	Name string
	// Embedded gives the app an Activity (the EMBEDDED flag and the Launch
	// entry point command).
	Embedded bool
}

// AppFields reads a new application {name, embedded?}.
func AppFields(f Form) AppRequest {
	f.Require("name")
	name, _ := f.StrLen("name", MinAppName, MaxUsername)
	embedded, _ := f.Bool("embedded")
	return AppRequest{Name: name, Embedded: embedded}
}
