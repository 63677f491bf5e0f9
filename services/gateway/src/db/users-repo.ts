import type { Member, ProjectMembership, Role, User } from "@mailroom/contracts";
import { iso, newId, traced, type Q, type Row } from "@mailroom/kit";
import type { memberships, users } from "./schema.js";

type UserRow = Row<typeof users>;
type MemberRow = Pick<UserRow, "email" | "name"> & Pick<Row<typeof memberships>, "user_id" | "role" | "created_at">;

const toUser = (r: Pick<UserRow, "id" | "email" | "name" | "created_at">): User => ({ id: r.id, email: r.email, name: r.name, createdAt: iso(r.created_at) });
const toMember = (r: MemberRow): Member => ({ userId: r.user_id, email: r.email, name: r.name, role: r.role, pending: false, createdAt: iso(r.created_at) });

/** Users and their memberships of projects (decisions.md §13). Emails match whatever their case. */
export const usersRepo = traced("UsersRepo", {
  async findByEmail(q: Q, email: string): Promise<(User & { passwordHash: string | null }) | null> {
    const [row] = await q<UserRow[]>`select * from users where lower(email) = lower(${email})`;
    return row ? { ...toUser(row), passwordHash: row.password_hash } : null;
  },

  async get(q: Q, userId: string): Promise<User | null> {
    const [row] = await q<UserRow[]>`select * from users where id = ${userId}`;
    return row ? toUser(row) : null;
  },

  /** A new user, or null when the address has an account already. */
  async create(q: Q, email: string, name: string, passwordHash: string | null): Promise<User | null> {
    const [row] = await q<UserRow[]>`
      insert into users (id, email, name, password_hash) values (${newId()}, ${email}, ${name}, ${passwordHash})
      on conflict do nothing returning *`;
    return row ? toUser(row) : null;
  },

  async setPassword(q: Q, userId: string, passwordHash: string): Promise<void> {
    await q`update users set password_hash = ${passwordHash} where id = ${userId}`;
  },

  async projectsOf(q: Q, userId: string): Promise<ProjectMembership[]> {
    return q<ProjectMembership[]>`
      select p.id, p.name, m.role from memberships m join projects p on p.id = m.project_id
      where m.user_id = ${userId} order by p.name, p.id`;
  },

  /** Adds the membership; an existing one keeps its role. Returns whether it was added. */
  async addMember(q: Q, projectId: string, userId: string, role: Role): Promise<boolean> {
    const rows = await q`
      insert into memberships (project_id, user_id, role) values (${projectId}, ${userId}, ${role})
      on conflict do nothing returning user_id`;
    return rows.length > 0;
  },

  async members(q: Q, projectId: string): Promise<Member[]> {
    const rows = await q<MemberRow[]>`
      select m.user_id, m.role, m.created_at, u.email, u.name from memberships m join users u on u.id = m.user_id
      where m.project_id = ${projectId} order by m.created_at, m.user_id`;
    return rows.map(toMember);
  },

  async member(q: Q, projectId: string, userId: string): Promise<Member | null> {
    const [row] = await q<MemberRow[]>`
      select m.user_id, m.role, m.created_at, u.email, u.name from memberships m join users u on u.id = m.user_id
      where m.project_id = ${projectId} and m.user_id = ${userId}`;
    return row ? toMember(row) : null;
  },

  async memberByEmail(q: Q, projectId: string, email: string): Promise<Member | null> {
    const [row] = await q<MemberRow[]>`
      select m.user_id, m.role, m.created_at, u.email, u.name from memberships m join users u on u.id = m.user_id
      where m.project_id = ${projectId} and lower(u.email) = lower(${email})`;
    return row ? toMember(row) : null;
  },

  /**
   * Locks the project's owner rows for the rest of the transaction and counts them, so two owners
   * demoting each other at once cannot leave the project with none.
   */
  async lockOwners(q: Q, projectId: string): Promise<string[]> {
    const rows = await q<{ user_id: string }[]>`
      select user_id from memberships where project_id = ${projectId} and role = 'owner' for update`;
    return rows.map((r) => r.user_id);
  },

  async setRole(q: Q, projectId: string, userId: string, role: Role): Promise<void> {
    await q`update memberships set role = ${role} where project_id = ${projectId} and user_id = ${userId}`;
  },

  async removeMember(q: Q, projectId: string, userId: string): Promise<boolean> {
    const rows = await q`delete from memberships where project_id = ${projectId} and user_id = ${userId} returning user_id`;
    return rows.length > 0;
  },
});
