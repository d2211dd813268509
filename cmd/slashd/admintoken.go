package main

// slashd admin-token: a new admin token, for a lost or leaked one.

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/slashd/slashd/internal/bootstrap"
)

const adminTokenAbout = `The admin token authorizes the admin API (Authorization: Admin …) and the
playground's login. Only its hash is stored, as with every token: it is shown
once, here.

By default every other admin token is revoked at once, in the same transaction:
the one in a lost or leaked bootstrap.json stops working, and playground
sessions opened with it end. --keep-old leaves them working.

When the data directory has a bootstrap.json, its admin_token is replaced (the
file is rewritten atomically, its other keys kept). A deleted bootstrap.json is
not recreated: its other secrets (bot token, client secret, client tokens)
exist only as hashes, so a file with the token alone would pass for a first
start's.

A server running on the directory accepts the new token (and refuses the
revoked ones) at once: admin tokens are read from the store on every request.`

// adminTokenResult is what admin-token --json prints.
type adminTokenResult struct {
	AdminToken string `json:"admin_token"`
	// Revoked counts the admin tokens revoked (0 with --keep-old).
	Revoked int `json:"revoked"`
	// BootstrapJSON is the bootstrap.json whose admin_token now is the
	// new one; "" when the data directory has none.
	BootstrapJSON string `json:"bootstrap_json"`
}

// defineAdminToken is `slashd admin-token`.
func defineAdminToken(fs *flagSet) runFunc {
	o := &storeOptions{}
	dataFlag(fs, &o.dataDir)
	storeFlag(fs, &o.store)
	secretKeyFlags(fs, &o.keys)
	keepOld := fs.Bool("keep-old", false, "keep the other admin tokens working (default: revoke them)")
	fs.BoolVar(&o.asJSON, "json", false, `print JSON: {"admin_token", "revoked", "bootstrap_json"}`)
	return func(ctx context.Context, out io.Writer) error {
		env, closeStore, err := cliEnv(ctx, o)
		if err != nil {
			return err
		}
		defer closeStore()
		var res adminTokenResult
		if *keepOld {
			res.AdminToken, err = bootstrap.CreateAdminToken(ctx, env)
		} else {
			res.AdminToken, res.Revoked, err = bootstrap.ReplaceAdminTokens(ctx, env)
		}
		if err != nil {
			return fmt.Errorf("admin-token: %w", err)
		}
		// The token exists nowhere else now: it is printed even when
		// bootstrap.json cannot be updated.
		found, fileErr := bootstrap.SetAdminToken(o.dataDir, res.AdminToken)
		if found && fileErr == nil {
			res.BootstrapJSON = filepath.Join(o.dataDir, bootstrap.FileName)
		}
		if o.asJSON {
			err = printJSON(out, res)
		} else {
			_, err = io.WriteString(out, res.text(*keepOld, o.dataDir, found))
		}
		if fileErr != nil {
			return fmt.Errorf("admin-token: the new token is valid, but %s could not be updated: %w", bootstrap.FileName, fileErr)
		}
		return err
	}
}

// text is what admin-token prints without --json.
func (r adminTokenResult) text(keptOld bool, dataDir string, found bool) string {
	s := "admin token: " + r.AdminToken + "\n"
	switch {
	case keptOld:
		s += "  the other admin tokens keep working (--keep-old)\n"
	case r.Revoked == 1:
		s += "  revoked the 1 other admin token\n"
	default:
		s += fmt.Sprintf("  revoked the %d other admin tokens\n", r.Revoked)
	}
	switch {
	case r.BootstrapJSON != "":
		s += "  " + r.BootstrapJSON + " now holds it (admin_token)\n"
	case !found:
		s += fmt.Sprintf("  no %s in %s: not recreated; keep the token, it is shown only here\n", bootstrap.FileName, dataDir)
	}
	return s
}
