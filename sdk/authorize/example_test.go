package authorize_test

import (
	"context"
	"fmt"
	"log"

	"github.com/slashd/slashd/sdk/authorize"
)

func ExampleAuthorizationArgs() {
	args := authorize.NewAuthorizationArgs()
	args.SetScopes(authorize.DefaultCommunicationScopes)
	args.SetCodeChallenge(authorize.Some(authorize.AuthorizationCodeChallenge{
		Challenge: authorize.S256Challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
		Method:    authorize.S256,
	}))
	args.SetIntegrationType(authorize.Some(authorize.UserInstall))

	// Copies are independent.
	mobile := args
	mobile.SetCustomSchemeParam(authorize.Some("mygame"))

	fmt.Println(args.Valid(), authorize.Null().Valid())
	fmt.Println(args.Scopes())
	fmt.Println(args.State().IsSet()) // unset: Authorize generates one
	fmt.Println(args.RedirectURI(1234))
	fmt.Println(mobile.RedirectURI(1234))
	// Output:
	// true false
	// openid sdk.social_layer
	// false
	// service-1234:/authorize/callback
	// mygame:/authorize/callback
}

func ExampleS256Challenge() {
	// RFC 7636, Appendix B.
	fmt.Println(authorize.S256Challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
	// Output: E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM
}

func ExampleOptional() {
	args := authorize.NewAuthorizationArgs()
	fmt.Println(args.Nonce().IsSet())
	args.SetNonce(authorize.Some(""))
	v, ok := args.Nonce().Get()
	fmt.Printf("%q %v\n", v, ok)
	args.SetNonce(authorize.None[string]())
	fmt.Println(args.Nonce())
	// Output:
	// false
	// "" true
	// <unset>
}

// The whole flow of a public client. It needs a running slashd and a
// browser, so it is compiled but not run.
func ExampleClient_Authorize() {
	ctx := context.Background()
	const appID = 1234567890
	c := authorize.NewClient("http://127.0.0.1:8080")
	c.SetApplicationID(appID)

	verifier, err := c.CreateAuthorizationCodeVerifier()
	if err != nil {
		log.Fatal(err)
	}
	args := authorize.NewAuthorizationArgs()
	args.SetScopes(c.GetDefaultCommunicationScopes())
	args.SetCodeChallenge(authorize.Some(verifier.Challenge))

	res, err := c.Authorize(ctx, args)
	if authorize.KindOf(err) == authorize.KindAborted {
		log.Fatal("authorization cancelled")
	} else if err != nil {
		log.Fatal(err)
	}
	tok, err := c.GetToken(ctx, appID, res.Code, verifier.Verifier, res.RedirectURI)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("granted:", tok.Scope)
}
