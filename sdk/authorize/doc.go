// Package authorize is slashd's Go client for OAuth2 authorization from a
// game or other native app: the Go mirror of the reference Social SDK's
// AuthorizationArgs, Client::Authorize, Client::GetToken and friends. It
// uses only the standard library.
//
// A public client (an app marked public on the server) runs the whole flow
// itself, with PKCE:
//
//	c := authorize.NewClient("http://127.0.0.1:8080")
//	c.SetApplicationID(appID)
//
//	verifier, err := c.CreateAuthorizationCodeVerifier()
//	...
//	args := authorize.NewAuthorizationArgs()
//	args.SetScopes(c.GetDefaultCommunicationScopes()) // "openid sdk.social_layer"
//	args.SetCodeChallenge(authorize.Some(verifier.Challenge))
//
//	res, err := c.Authorize(ctx, args) // opens the browser, waits for consent
//	...
//	tok, err := c.GetToken(ctx, appID, res.Code, verifier.Verifier, res.RedirectURI)
//
// # Redirects
//
// By default Authorize receives the redirect on a loopback listener it
// starts on 127.0.0.1 with an ephemeral port; the redirect URI is
// http://127.0.0.1:<port>/callback. Register http://127.0.0.1/callback for
// the app: the server accepts any loopback port (RFC 8252 §7.3). Because the
// port changes, GetToken must be given the exact AuthorizeResult.RedirectURI.
//
// Apps that get the redirect from the operating system as a deep link
// (mobile) use the custom-scheme mode: set
// AuthorizationArgs.CustomSchemeParam (redirect "<scheme>:/authorize/callback")
// or make the client with [WithCustomSchemeRedirects] (redirect
// "service-<application_id>:/authorize/callback", which the server registers
// for every public client), then pass the delivered URL to
// [Client.HandleRedirect]; the pending Authorize returns with the code.
// Custom-scheme redirects require PKCE.
//
// # Optional properties
//
// Properties that are std::optional in the reference SDK are [Optional]
// values: Some("") (set to empty) differs from None (unset), and an
// AuthorizationArgs copied by assignment is fully independent of the
// original. The zero AuthorizationArgs is the null object ([Null]); Valid
// stands for the reference SDK's conversion to bool.
//
// # Errors
//
// Every error is an [*Error] whose Kind mirrors the reference SDK's result
// types: KindValidation, KindAborted, KindAuthorizationFailed, KindHTTP
// (with Status, Body and the RFC 6749 error fields) and KindNetwork. Use
// errors.As or [KindOf].
package authorize
