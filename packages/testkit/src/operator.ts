import { closeAtWorkerEnd } from "./worker.js";

/** A project as `mailroom projects create --json` prints it: its keys are shown this once. */
export interface TestProject {
  id: string;
  name: string;
  secretKey: string;
  publicKey: string;
}

/**
 * What the kit uses of `@mailroom/gateway/operator` (services/gateway/src/operator.ts), the module
 * behind `mailroom projects create` and `mailroom users create`. It is loaded by name when first
 * used, not declared as a dependency: the gateway's own tests depend on this kit, and a dependency
 * back would be a cycle in the build graph. Tests run after the whole build, as `runCli` runs the
 * gateway's built CLI.
 */
interface OperatorModule {
  openGatewayDatabase(env: Record<string, string | undefined>, opts?: { max?: number }): GatewayDatabase;
  gatewayDatabaseUrl(env: Record<string, string | undefined>): string;
  createProject(sql: GatewayDatabase, name: string): Promise<TestProject | Error>;
  createUser(sql: GatewayDatabase, args: { email: string; project: string; role: string; password?: string; name?: string }): Promise<CreatedUser | Error>;
  forceVerifyDomain(projectId: string, domain: string, env: Record<string, string | undefined>): Promise<unknown>;
}
/** A user as `mailroom users create --json` prints it (the password only when it made one). */
export interface CreatedUser {
  user: { id: string; email: string; name: string };
  projectId: string;
  role: string;
  password?: string;
}
interface GatewayDatabase {
  end(opts?: { timeout?: number }): Promise<void>;
}

const OPERATOR_MODULE = "@mailroom/gateway/operator";
let operatorModule: Promise<OperatorModule> | undefined;
// a specifier in a variable: TypeScript resolves a literal one, and the gateway may not be built yet when this kit is
const loadOperatorModule = () => (operatorModule ??= import(OPERATOR_MODULE) as Promise<OperatorModule>);

/**
 * The operator CLI's project and user creation, run in this process over a connection of its own to
 * a platform's gateway database: what `mailroom projects create` and `mailroom users create` do,
 * without starting a node process for each (about a second apiece on a loaded 2-core machine). The
 * tests of the CLI itself still run it (`runCli`).
 */
export class GatewayOperator {
  private constructor(
    private readonly operator: OperatorModule,
    private readonly sql: GatewayDatabase,
  ) {}

  /** Over the gateway database that `env` names, as the services' environment does (DATABASE_URL, DB_PREFIX). */
  static async open(env: Record<string, string>): Promise<GatewayOperator> {
    const operator = await loadOperatorModule();
    // One connection: a test worker makes its projects a few at a time, each one short transaction.
    return new GatewayOperator(operator, operator.openGatewayDatabase({ ...process.env, ...env }, { max: 1 }));
  }

  async createProject(name = "test"): Promise<TestProject> {
    return made(await this.operator.createProject(this.sql, name));
  }

  /**
   * A dashboard user with `password` (without one, a new user gets a password made and returned, as
   * the CLI prints it), member of `projectId` with `role` (a user of that email gets the membership).
   */
  async createUser(user: { email: string; password?: string; projectId: string; role: "owner" | "editor" | "viewer" }): Promise<CreatedUser> {
    return made(await this.operator.createUser(this.sql, { email: user.email, password: user.password, project: user.projectId, role: user.role }));
  }

  close(): Promise<void> {
    return this.sql.end({ timeout: 1 });
  }
}

function made<T>(result: T | Error): T {
  if (result instanceof Error) throw new Error(`the operator refused: ${result.message}`);
  return result;
}

/**
 * What `mailroom domains verify --project … --domain …` does (the operator's override: no DNS), in
 * this process: the sending service of the platform that `env` names marks the domain verified.
 */
export async function verifyDomain(env: Record<string, string>, projectId: string, domain: string): Promise<void> {
  await (await loadOperatorModule()).forceVerifyDomain(projectId, domain, { ...process.env, ...env });
}

const perWorker = new Map<string, Promise<GatewayOperator>>();

/**
 * The test worker's operator for the platform that `env` names, opened by its first use and kept
 * for the worker's later files (see worker.ts), so a worker holds one connection to that gateway
 * database whatever number of projects its files make.
 */
export async function workerOperator(env: Record<string, string>): Promise<GatewayOperator> {
  const url = (await loadOperatorModule()).gatewayDatabaseUrl({ ...process.env, ...env });
  let operator = perWorker.get(url);
  if (!operator) {
    operator = GatewayOperator.open(env);
    perWorker.set(url, operator);
    // a failed open is not kept: the next file tries again
    operator.then(
      (op) => closeAtWorkerEnd(() => op.close()),
      () => perWorker.delete(url),
    );
  }
  return operator;
}
