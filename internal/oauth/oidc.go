package oauth

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/store"
)

// signingKeyBits is the size of the RSA keys that sign id_tokens.
const signingKeyBits = 2048

// keyring holds the id_token signing keys: the one this process signs
// with, made (and stored) on first use when the store has none, and the
// parsed form of every stored key, by kid.
type keyring struct {
	mu     sync.Mutex
	signer *rsaKey
	parsed map[string]*rsaKey
}

type rsaKey struct {
	kid string
	key *rsa.PrivateKey
}

// signingKey returns the key to sign with: the newest stored one, or a
// new RSA-2048 key stored for every later start (and every process
// sharing the store) to use and publish.
func (s *Server) signingKey(ctx context.Context) (*rsaKey, error) {
	s.keys.mu.Lock()
	defer s.keys.mu.Unlock()
	if s.keys.signer != nil {
		return s.keys.signer, nil
	}
	stored, err := s.store.SigningKeys(ctx)
	if err != nil {
		return nil, err
	}
	if len(stored) > 0 {
		k, err := s.keys.parse(stored[0])
		if err != nil {
			return nil, err
		}
		s.keys.signer = k
		return k, nil
	}
	// Key generation draws from the system's secure source whatever
	// Deps.Rand is: a signing key is never a test fixture.
	priv, err := rsa.GenerateKey(rand.Reader, signingKeyBits)
	if err != nil {
		return nil, fmt.Errorf("generate signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("encode signing key: %w", err)
	}
	k := &rsaKey{kid: thumbprint(&priv.PublicKey), key: priv}
	if err := s.store.CreateSigningKey(ctx, store.SigningKey{ID: k.kid, PrivateKey: der, CreatedAt: s.now().UTC()}); err != nil {
		return nil, err
	}
	s.keys.remember(k)
	s.keys.signer = k
	return k, nil
}

// parse decodes a stored key, once per kid. The caller holds mu.
func (kr *keyring) parse(sk store.SigningKey) (*rsaKey, error) {
	if k, ok := kr.parsed[sk.ID]; ok {
		return k, nil
	}
	priv, err := x509.ParsePKCS8PrivateKey(sk.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", sk.ID, err)
	}
	rk, ok := priv.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("signing key %s: not an RSA key", sk.ID)
	}
	k := &rsaKey{kid: sk.ID, key: rk}
	kr.remember(k)
	return k, nil
}

func (kr *keyring) remember(k *rsaKey) {
	if kr.parsed == nil {
		kr.parsed = map[string]*rsaKey{}
	}
	kr.parsed[k.kid] = k
}

// publicKeys returns every stored key, newest first (making the first
// key if there is none, so that the set is never empty).
func (s *Server) publicKeys(ctx context.Context) ([]*rsaKey, error) {
	if _, err := s.signingKey(ctx); err != nil {
		return nil, err
	}
	stored, err := s.store.SigningKeys(ctx)
	if err != nil {
		return nil, err
	}
	s.keys.mu.Lock()
	defer s.keys.mu.Unlock()
	out := make([]*rsaKey, 0, len(stored))
	for _, sk := range stored {
		k, err := s.keys.parse(sk)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// JWK is an RSA public key in JSON Web Key form (RFC 7517, 7518 §6.3).
type JWK struct {
	Kty string `json:"kty"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	N   string `json:"n"`
	E   string `json:"e"`
}

func publicJWK(kid string, pub *rsa.PublicKey) JWK {
	return JWK{Kty: "RSA", Use: "sig", Alg: "RS256", Kid: kid,
		N: b64url(pub.N.Bytes()), E: b64url(big.NewInt(int64(pub.E)).Bytes())}
}

// thumbprint is a key's RFC 7638 JWK thumbprint, its kid.
func thumbprint(pub *rsa.PublicKey) string {
	j := publicJWK("", pub)
	// The required members in lexicographic order, no whitespace.
	sum := sha256.Sum256([]byte(`{"e":"` + j.E + `","kty":"RSA","n":"` + j.N + `"}`))
	return b64url(sum[:])
}

func b64url(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwks is GET /oauth2/keys: the JSON Web Key Set id_tokens verify with.
func (s *Server) jwks(w http.ResponseWriter, r *http.Request) {
	keys, err := s.publicKeys(r.Context())
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	set := struct {
		Keys []JWK `json:"keys"`
	}{Keys: make([]JWK, len(keys))}
	for i, k := range keys {
		set.Keys[i] = publicJWK(k.kid, &k.key.PublicKey)
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	writeJSON(w, http.StatusOK, set)
}

// idClaims are an id_token's claims (OpenID Connect Core §2).
type idClaims struct {
	Issuer   string `json:"iss"`
	Subject  string `json:"sub"`
	Audience string `json:"aud"`
	IssuedAt int64  `json:"iat"`
	Expires  int64  `json:"exp"`
	Nonce    string `json:"nonce,omitempty"`
	// AuthTime is when the user last logged in (§2: required when the
	// request had max_age; slashd always sends it).
	AuthTime int64 `json:"auth_time"`
	// AtHash binds the id_token to the access token issued with it
	// (§3.1.3.6): the left half of its SHA-256, base64url.
	AtHash string `json:"at_hash"`
}

// idTokenFacts are what an id_token states beside its grant: the
// authorization request's nonce and when the user last logged in.
type idTokenFacts struct {
	nonce    string
	authTime time.Time
}

// idToken signs an id_token (RS256) for grant g: the user is the subject,
// the app the audience; it expires with the access token.
func (s *Server) idToken(ctx context.Context, iss string, g store.Grant, facts idTokenFacts, accessToken string, now time.Time) (string, error) {
	k, err := s.signingKey(ctx)
	if err != nil {
		return "", err
	}
	atHash := sha256.Sum256([]byte(accessToken))
	claims := idClaims{Issuer: iss, Subject: g.UserID.String(), Audience: g.ApplicationID.String(),
		IssuedAt: now.Unix(), Expires: now.Add(auth.AccessTokenLifetime).Unix(), Nonce: facts.nonce, AuthTime: facts.authTime.Unix(),
		AtHash: b64url(atHash[:len(atHash)/2])}
	return signJWT(k, claims)
}

// signJWT encodes and signs claims as a compact JWS with RS256.
func signJWT(k *rsaKey, claims any) (string, error) {
	header, err := jsonenc.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": k.kid})
	if err != nil {
		return "", err
	}
	payload, err := jsonenc.Marshal(claims)
	if err != nil {
		return "", err
	}
	signingInput := b64url(header) + "." + b64url(payload)
	digest := sha256.Sum256([]byte(signingInput))
	sig, err := rsa.SignPKCS1v15(nil, k.key, crypto.SHA256, digest[:])
	if err != nil {
		return "", fmt.Errorf("sign id_token: %w", err)
	}
	return signingInput + "." + b64url(sig), nil
}

// issuer is the base URL the request reached: the iss of id_tokens and
// the root of the discovery document's URLs.
func issuer(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// discoveryDocument is OpenID Connect Discovery 1.0's provider metadata.
type discoveryDocument struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	UserinfoEndpoint                  string   `json:"userinfo_endpoint"`
	JWKSURI                           string   `json:"jwks_uri"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ScopesSupported                   []string `json:"scopes_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
	IDTokenSigningAlgValuesSupported  []string `json:"id_token_signing_alg_values_supported"`
	SubjectTypesSupported             []string `json:"subject_types_supported"`
	ClaimsSupported                   []string `json:"claims_supported"`
	PromptValuesSupported             []string `json:"prompt_values_supported"`
	ClaimsParameterSupported          bool     `json:"claims_parameter_supported"`
	RequestParameterSupported         bool     `json:"request_parameter_supported"`
	RequestURIParameterSupported      bool     `json:"request_uri_parameter_supported"`
}

// discovery is GET /.well-known/openid-configuration.
func (s *Server) discovery(w http.ResponseWriter, r *http.Request) {
	base := issuer(r)
	api := base + "/api/v10"
	names := make([]string, len(scopes))
	for i, sc := range scopes {
		names[i] = sc.Name
	}
	authMethods := []string{"client_secret_basic", "client_secret_post", "none"}
	doc := discoveryDocument{
		Issuer:                            base,
		AuthorizationEndpoint:             base + "/oauth2/authorize",
		TokenEndpoint:                     api + "/oauth2/token",
		RevocationEndpoint:                api + "/oauth2/token/revoke",
		UserinfoEndpoint:                  api + "/oauth2/userinfo",
		JWKSURI:                           api + "/oauth2/keys",
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token", "client_credentials"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		ScopesSupported:                   names,
		TokenEndpointAuthMethodsSupported: authMethods,
		RevocationEndpointAuthMethods:     authMethods,
		IDTokenSigningAlgValuesSupported:  []string{"RS256"},
		SubjectTypesSupported:             []string{"public"},
		// The id_token's claims, then userinfo's.
		ClaimsSupported: []string{"iss", "sub", "aud", "iat", "exp", "auth_time", "nonce", "at_hash",
			"preferred_username", "nickname", "locale"},
		// For requests with openid (docs/compat.md, "OpenID Connect
		// requests"); the three request forms slashd does not take are
		// said false, since Discovery §3 makes only request_uri's
		// default true.
		PromptValuesSupported:        []string{"none", "login", "consent", "select_account"},
		ClaimsParameterSupported:     false,
		RequestParameterSupported:    false,
		RequestURIParameterSupported: false,
	}
	writeJSON(w, http.StatusOK, doc)
}
