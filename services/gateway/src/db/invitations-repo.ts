import type { Member, Role } from "@mailroom/contracts";
import { iso, newId, traced, type Q, type Row } from "@mailroom/kit";
import type { invitations } from "./schema.js";

type InvitationRow = Row<typeof invitations>;

const toMember = (r: InvitationRow): Member => ({ userId: r.id, email: r.email, name: "", role: r.role, pending: true, createdAt: iso(r.created_at) });

/** Invitations to a project; a token works once, until `expires_at`, and only by its hash. */
export const invitationsRepo = traced("InvitationsRepo", {
  /** A new invitation; an earlier pending one to the same address of the project is withdrawn. */
  async create(q: Q, inv: { projectId: string; email: string; role: Role; tokenHash: string; invitedBy: string | null; ttlMs: number }): Promise<Member> {
    await q`delete from invitations where project_id = ${inv.projectId} and lower(email) = lower(${inv.email}) and accepted_at is null`;
    const [row] = await q<InvitationRow[]>`
      insert into invitations (id, project_id, email, role, token_hash, invited_by, expires_at)
      values (${newId()}, ${inv.projectId}, ${inv.email}, ${inv.role}, ${inv.tokenHash}, ${inv.invitedBy},
        now() + ${inv.ttlMs} * interval '1 millisecond')
      returning *`;
    return toMember(row!);
  },

  /** The address's pending invitation to the project, given `role`; null when it has none. */
  async pendingTo(q: Q, projectId: string, email: string, role: Role): Promise<Member | null> {
    const [row] = await q<InvitationRow[]>`
      update invitations set role = ${role}
      where project_id = ${projectId} and lower(email) = lower(${email}) and accepted_at is null and expires_at > now()
      returning *`;
    return row ? toMember(row) : null;
  },

  /**
   * Takes the hour's one invitation email to the address (decisions.md §15): the time it is sent,
   * or null when one went less than an hour ago. One statement on the address's row, so of parallel
   * invitations exactly one gets it; the others wait for its transaction and find its invitation.
   */
  async claimMailing(q: Q, projectId: string, email: string): Promise<Date | null> {
    const [row] = await q<{ sent_at: Date }[]>`
      insert into invitation_mailings (project_id, address) values (${projectId}, ${email.toLowerCase()})
      on conflict (project_id, address) do update set sent_at = excluded.sent_at
        where invitation_mailings.sent_at <= now() - interval '1 hour'
      returning sent_at`;
    return row?.sent_at ?? null;
  },

  /** The email could not be sent: the hour's mailing is not spent. */
  async releaseMailing(q: Q, projectId: string, email: string, sentAt: Date): Promise<void> {
    await q`delete from invitation_mailings where project_id = ${projectId} and address = ${email.toLowerCase()} and sent_at = ${sentAt}`;
  },

  async pruneMailings(q: Q): Promise<void> {
    await q`delete from invitation_mailings where sent_at < now() - interval '1 hour'`;
  },

  async pending(q: Q, projectId: string): Promise<Member[]> {
    const rows = await q<InvitationRow[]>`
      select * from invitations where project_id = ${projectId} and accepted_at is null and expires_at > now()
      order by created_at, id`;
    return rows.map(toMember);
  },

  /** The token's invitation while it can be accepted (unused, unexpired); nothing is marked. */
  async byToken(q: Q, tokenHash: string): Promise<Pick<InvitationRow, "project_id" | "email" | "role"> | null> {
    const [row] = await q<InvitationRow[]>`
      select * from invitations where token_hash = ${tokenHash} and accepted_at is null and expires_at > now()`;
    return row ?? null;
  },

  /** Marks the token's invitation accepted and returns it, or null when it is unknown, used or expired. */
  async accept(q: Q, tokenHash: string): Promise<Pick<InvitationRow, "project_id" | "email" | "role"> | null> {
    const [row] = await q<InvitationRow[]>`
      update invitations set accepted_at = now()
      where token_hash = ${tokenHash} and accepted_at is null and expires_at > now() returning *`;
    return row ?? null;
  },

  async withdraw(q: Q, projectId: string, id: string): Promise<boolean> {
    const rows = await q`delete from invitations where project_id = ${projectId} and id = ${id} and accepted_at is null returning id`;
    return rows.length > 0;
  },

  /** Accepts every pending invitation to `email` (a verified OpenID Connect address) and returns them. */
  async acceptAllFor(q: Q, email: string): Promise<Array<Pick<InvitationRow, "id" | "project_id" | "role">>> {
    return q<Pick<InvitationRow, "id" | "project_id" | "role">[]>`
      update invitations set accepted_at = now()
      where lower(email) = lower(${email}) and accepted_at is null and expires_at > now() returning id, project_id, role`;
  },
});
