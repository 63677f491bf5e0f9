import { EmailAddress, Password, Role, type User } from "@mailroom/contracts";
import type { Sql } from "@mailroom/kit";
import { keysRepo } from "../db/keys-repo.js";
import { sessionsRepo } from "../db/sessions-repo.js";
import { usersRepo } from "../db/users-repo.js";
import { generatePassword, hashPassword } from "../domain/passwords.js";

export interface CreatedUser {
  user: User;
  projectId: string;
  role: Role;
  /** The password generated for a new user given none: shown this once. */
  password?: string;
}

/**
 * `mailroom users create` (decisions.md §13): a user and their membership, or the membership of an
 * existing user (whose password changes only when one is given, ending their sessions). An Error
 * names a bad argument.
 */
export async function createUser(
  sql: Sql,
  args: { email?: string; project?: string; role?: string; password?: string; name?: string },
): Promise<CreatedUser | Error> {
  const email = EmailAddress.safeParse(args.email);
  if (!email.success) return new Error("--email must be an email address");
  const role = Role.safeParse(args.role);
  if (!role.success) return new Error("--role must be owner, editor or viewer");
  if (args.password !== undefined && !Password.safeParse(args.password).success) return new Error("--password must be 10 to 200 characters");
  if (!args.project || !(await keysRepo.projectExists(sql, args.project).catch(() => false))) return new Error(`no project ${args.project ?? "(--project is required)"}`);
  const projectId = args.project;
  const generated = args.password === undefined ? generatePassword() : undefined;
  const hash = await hashPassword(args.password ?? generated!);
  return sql.begin(async (tx) => {
    const existing = await usersRepo.findByEmail(tx, email.data);
    let user: User | null = existing;
    if (existing && args.password !== undefined) {
      // a new password ends every session of the old one (decisions.md §15)
      await usersRepo.setPassword(tx, existing.id, hash);
      await sessionsRepo.revokeAllOf(tx, existing.id, null);
    }
    user ??= await usersRepo.create(tx, email.data, args.name?.trim() || email.data.split("@")[0]!, hash);
    if (!user) throw new Error("the address got an account meanwhile; run the command again");
    if (!(await usersRepo.addMember(tx, projectId, user.id, role.data))) await usersRepo.setRole(tx, projectId, user.id, role.data);
    const shown = { id: user.id, email: user.email, name: user.name, createdAt: user.createdAt };
    return { user: shown, projectId, role: role.data, ...(existing ? {} : { password: generated }) };
  });
}
