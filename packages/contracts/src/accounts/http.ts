import { z } from "zod";
import { defineRoute } from "../route.js";
import { EmailAddress, Id, Timestamp } from "../common.js";
import { Role } from "../roles.js";

/**
 * Accounts, sessions, members and keys (decisions.md §13). These routes are the gateway's own: it
 * owns users, sessions and keys, so it answers them itself instead of forwarding them over NATS.
 */

/** The session cookie and the header naming the project a session's request acts on. */
export const SESSION_COOKIE = "mailroom_session";
export const PROJECT_HEADER = "X-Mailroom-Project";

export const User = z.object({ id: z.string(), email: z.string(), name: z.string(), createdAt: Timestamp });
export type User = z.infer<typeof User>;

export const ProjectMembership = z.object({ id: z.string(), name: z.string(), role: Role });
export type ProjectMembership = z.infer<typeof ProjectMembership>;

/** `POST /auth/login` and `GET /auth/me`. */
export const SessionInfo = z.object({ user: User, projects: z.array(ProjectMembership) });
export type SessionInfo = z.infer<typeof SessionInfo>;

/** Bounded so a hostile body cannot make the password hash work on megabytes. */
export const Password = z.string().min(10, { message: "must be at least 10 characters" }).max(200);

export const LoginRequest = z.object({ email: EmailAddress, password: z.string().min(1).max(200) });
export type LoginRequest = z.infer<typeof LoginRequest>;

export const AcceptInvitationRequest = z.object({
  token: z.string().min(1).max(2000),
  name: z.string().trim().min(1).max(200),
  /**
   * A new account's password; for an address that has an account already, that account's password,
   * unless the request carries that account's signed-in session (decisions.md §15).
   */
  password: Password.optional(),
});
export type AcceptInvitationRequest = z.infer<typeof AcceptInvitationRequest>;

/** `POST /auth/password`: the signed-in user's new password; every other session of theirs ends. */
export const ChangePasswordRequest = z.object({ currentPassword: z.string().min(1).max(200), newPassword: Password });
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequest>;

export const Member = z.object({
  /** The user's id (an invitation not yet accepted has the invitation's id and `pending: true`). */
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role: Role,
  pending: z.boolean(),
  createdAt: Timestamp,
});
export type Member = z.infer<typeof Member>;
export const MemberList = z.object({ data: z.array(Member) });
export type MemberList = z.infer<typeof MemberList>;

export const InviteMemberRequest = z.object({ email: EmailAddress, role: Role });
export type InviteMemberRequest = z.infer<typeof InviteMemberRequest>;
export const UpdateMemberRequest = z.object({ role: Role });
export type UpdateMemberRequest = z.infer<typeof UpdateMemberRequest>;

export const KeyKind = z.enum(["secret", "public"]);
export type KeyKind = z.infer<typeof KeyKind>;

export const ApiKey = z.object({
  id: z.string(),
  kind: KeyKind,
  name: z.string(),
  /** The first characters of the key, to tell keys apart; the key itself is shown only once. */
  prefix: z.string(),
  rateLimit: z.number().int().nullable(),
  createdAt: Timestamp,
  revokedAt: Timestamp.nullable(),
});
export type ApiKey = z.infer<typeof ApiKey>;
export const ApiKeyList = z.object({ data: z.array(ApiKey) });
export type ApiKeyList = z.infer<typeof ApiKeyList>;

export const CreateKeyRequest = z.object({
  kind: KeyKind,
  name: z.string().trim().min(1).max(100),
  rateLimit: z.number().int().min(1).max(100_000).optional(),
});
export type CreateKeyRequest = z.infer<typeof CreateKeyRequest>;
/** The new key in full: the only answer that ever carries it. */
export const CreatedKey = ApiKey.extend({ key: z.string() });
export type CreatedKey = z.infer<typeof CreatedKey>;

export const ProjectParams = z.object({ id: Id });
export const MemberParams = z.object({ id: Id, userId: Id });
export const KeyParams = z.object({ id: Id, keyId: Id });

const auth = { service: "gateway", auth: "none", tag: "Accounts" } as const;
const owner = { service: "gateway", auth: "session", role: "owner", tag: "Accounts" } as const;

export const accountRoutes = [
  defineRoute({ ...auth, method: "POST", path: "/auth/login", operation: "gateway.auth.login", summary: "Sign in with email and password (sets the session cookie)", body: LoginRequest, response: SessionInfo, status: 200 }),
  defineRoute({ ...auth, auth: "session", method: "POST", path: "/auth/logout", operation: "gateway.auth.logout", summary: "Sign out (the session is revoked on the server)", status: 204 }),
  defineRoute({ ...auth, auth: "session", method: "GET", path: "/auth/me", operation: "gateway.auth.me", summary: "The signed-in user and their projects", response: SessionInfo, status: 200 }),
  defineRoute({ ...auth, auth: "session", method: "POST", path: "/auth/logout-everywhere", operation: "gateway.auth.logoutEverywhere", summary: "Sign out everywhere (every session of the user is revoked, this one included)", status: 204 }),
  defineRoute({ ...auth, auth: "session", method: "POST", path: "/auth/password", operation: "gateway.auth.changePassword", summary: "Change the password (needs the current one; the user's other sessions are revoked)", body: ChangePasswordRequest, status: 204 }),
  defineRoute({ ...auth, method: "POST", path: "/auth/invitations/accept", operation: "gateway.auth.acceptInvitation", summary: "Accept an invitation (creates the account when needed; an existing account needs its password or its session; signs in)", body: AcceptInvitationRequest, response: SessionInfo, status: 200 }),
  defineRoute({ ...owner, role: "viewer", method: "GET", path: "/projects/:id/members", operation: "gateway.members.list", summary: "List a project's members and pending invitations", params: ProjectParams, response: MemberList, status: 200 }),
  defineRoute({ ...owner, method: "POST", path: "/projects/:id/members", operation: "gateway.members.invite", summary: "Invite a member (an email with a signed link)", params: ProjectParams, body: InviteMemberRequest, response: Member, status: 201 }),
  defineRoute({ ...owner, method: "PATCH", path: "/projects/:id/members/:userId", operation: "gateway.members.update", summary: "Change a member's role", params: MemberParams, body: UpdateMemberRequest, response: Member, status: 200 }),
  defineRoute({ ...owner, method: "DELETE", path: "/projects/:id/members/:userId", operation: "gateway.members.remove", summary: "Remove a member or withdraw an invitation", params: MemberParams, status: 204 }),
  defineRoute({ ...owner, method: "GET", path: "/projects/:id/keys", operation: "gateway.keys.list", summary: "List a project's API keys", params: ProjectParams, response: ApiKeyList, status: 200 }),
  defineRoute({ ...owner, method: "POST", path: "/projects/:id/keys", operation: "gateway.keys.create", summary: "Create an API key (shown once)", params: ProjectParams, body: CreateKeyRequest, response: CreatedKey, status: 201 }),
  defineRoute({ ...owner, method: "DELETE", path: "/projects/:id/keys/:keyId", operation: "gateway.keys.revoke", summary: "Revoke an API key", params: KeyParams, status: 204 }),
];
