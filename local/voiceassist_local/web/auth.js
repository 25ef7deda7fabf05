// Sign-in. Locally there is none (the server answers as its single local user). On AWS: Cognito's hosted
// UI with the authorization code grant and PKCE (S256); the tokens live in this tab's sessionStorage only.

const KEY = "voiceassist.tokens";
const PENDING = "voiceassist.pkce";

export class Auth {
  constructor(config, localGroups = []) {
    this.config = config; // null locally; {domain, client_id, redirect_uri, scopes} on AWS
    this.localGroups = localGroups; // the local server's user's groups
    this.tokens = JSON.parse(sessionStorage.getItem(KEY) || "null");
  }

  get required() {
    return this.config !== null;
  }

  idToken() {
    if (!this.required || !this.tokens) return null;
    if (Date.now() / 1000 > this.tokens.expires_at - 30) return null;
    return this.tokens.id_token;
  }

  claims() {
    const token = this.idToken();
    if (!token) return {};
    const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(decodeURIComponent(escape(atob(payload))));
  }

  isAdmin() {
    if (!this.required) return this.localGroups.includes("admin");
    return (this.claims()["cognito:groups"] || []).includes("admin");
  }

  // Finishes a redirect back from the hosted UI (?code=&state=); true when the page has a usable token.
  async complete() {
    if (!this.required) return true;
    const params = new URLSearchParams(location.search);
    const code = params.get("code");
    if (code) {
      const pending = JSON.parse(sessionStorage.getItem(PENDING) || "null");
      sessionStorage.removeItem(PENDING);
      if (!pending || pending.state !== params.get("state")) throw new Error("The sign-in reply did not match this tab; sign in again.");
      await this.exchange(code, pending.verifier);
      history.replaceState(null, "", pending.return_to || "/");
    }
    return this.idToken() !== null;
  }

  async exchange(code, verifier) {
    const body = new URLSearchParams({
      grant_type: "authorization_code",
      client_id: this.config.client_id,
      code,
      redirect_uri: this.config.redirect_uri,
      code_verifier: verifier,
    });
    const reply = await fetch(`${this.config.domain}/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    if (!reply.ok) throw new Error("Sign-in failed: the token exchange was refused. Sign in again.");
    const tokens = await reply.json();
    this.tokens = { id_token: tokens.id_token, expires_at: Date.now() / 1000 + tokens.expires_in };
    sessionStorage.setItem(KEY, JSON.stringify(this.tokens));
  }

  async signIn() {
    const verifier = randomString(64);
    const state = randomString(32);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
    sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, return_to: location.pathname + location.search }));
    const params = new URLSearchParams({
      response_type: "code",
      client_id: this.config.client_id,
      redirect_uri: this.config.redirect_uri,
      scope: this.config.scopes,
      state,
      code_challenge: base64Url(new Uint8Array(digest)),
      code_challenge_method: "S256",
    });
    location.assign(`${this.config.domain}/oauth2/authorize?${params}`);
  }

  signOut() {
    sessionStorage.removeItem(KEY);
    this.tokens = null;
    if (!this.required) return;
    const params = new URLSearchParams({ client_id: this.config.client_id, logout_uri: this.config.redirect_uri });
    location.assign(`${this.config.domain}/logout?${params}`);
  }
}

function randomString(bytes) {
  return base64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

function base64Url(bytes) {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
