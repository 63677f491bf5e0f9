import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { parse, serialize } from "cookie";
import * as oidc from "openid-client";
import type { Logger } from "@mailroom/kit";
import { sendError } from "./errors.js";
import { setSessionCookie, type AccountDeps } from "./accounts.js";

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** Holds the sign-in's state and PKCE verifier in the browser that started it, for ten minutes. */
const FLOW_COOKIE = "mailroom_oidc";
const FLOW_PATH = "/auth/oidc";

/**
 * OpenID Connect sign-in (decisions.md §13), registered only when OIDC_ISSUER, OIDC_CLIENT_ID and
 * OIDC_CLIENT_SECRET are set (the routes are 404 otherwise). The issuer's verified email must be an
 * existing user's, or have a pending invitation (accepted on the way in); then a session as with a
 * password, and the browser goes to the dashboard.
 */
export function registerOidc(
  app: FastifyInstance,
  settings: OidcSettings,
  deps: AccountDeps & { log: Logger; publicUrl: string },
  keyless: onRequestHookHandler,
): void {
  const redirectUri = new URL(`${FLOW_PATH}/callback`, deps.publicUrl).toString();
  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = () => {
    const issuer = new URL(settings.issuer);
    // a plain-http issuer is the operator's explicit choice (a test or a private network)
    const options = issuer.protocol === "http:" ? { execute: [oidc.allowInsecureRequests] } : undefined;
    discovered ??= oidc.discovery(issuer, settings.clientId, settings.clientSecret, undefined, options).catch((err) => {
      discovered = undefined; // asked again on the next sign-in
      throw err;
    });
    return discovered;
  };
  const flowCookie = (value: string, maxAge: number) =>
    serialize(FLOW_COOKIE, value, { httpOnly: true, sameSite: "lax", path: FLOW_PATH, secure: deps.secureCookie, maxAge });
  const unavailable = (reply: FastifyReply, err: unknown) => {
    deps.log.warn({ err }, "OpenID Connect sign-in failed");
    return sendError(reply, { error: "SERVICE_UNAVAILABLE", message: "The identity provider could not be reached, try again" });
  };

  app.get(`${FLOW_PATH}/start`, { onRequest: keyless }, async (_req, reply) => {
    let config: oidc.Configuration;
    try {
      config = await configuration();
    } catch (err) {
      return unavailable(reply, err);
    }
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: "openid email profile",
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
    });
    reply.header("set-cookie", flowCookie(`${state}.${verifier}`, 600));
    return reply.redirect(url.href, 302);
  });

  app.get(`${FLOW_PATH}/callback`, { onRequest: keyless }, async (req: FastifyRequest, reply) => {
    const [state, verifier] = (parse(req.headers.cookie ?? "")[FLOW_COOKIE] ?? "").split(".");
    if (!state || !verifier) return sendError(reply, { error: "VALIDATION_ERROR", message: "No sign-in in progress in this browser: start again" });
    let claims: oidc.IDToken | undefined;
    try {
      const config = await configuration();
      const current = new URL(req.url, deps.publicUrl);
      claims = (await oidc.authorizationCodeGrant(config, current, { pkceCodeVerifier: verifier, expectedState: state })).claims();
    } catch (err) {
      if (err instanceof oidc.AuthorizationResponseError || err instanceof oidc.ResponseBodyError) {
        return sendError(reply, { error: "UNAUTHORIZED", message: "The identity provider did not sign you in" });
      }
      return unavailable(reply, err);
    }
    reply.header("set-cookie", flowCookie("", 0));
    const email = typeof claims?.email === "string" && claims.email_verified === true ? claims.email : null;
    if (!email) return sendError(reply, { error: "FORBIDDEN", message: "The identity provider gave no verified email address" });
    const user = await deps.accounts.fromIdentityProvider(email, typeof claims?.name === "string" ? claims.name : undefined);
    if (!user) return sendError(reply, { error: "FORBIDDEN", message: "No account or invitation for this email address" });
    // fastify keeps every set-cookie: the flow's cleared above, the session's set here
    setSessionCookie(reply, await deps.sessions.create(user.id), deps);
    return reply.redirect("/app/", 302);
  });
}
