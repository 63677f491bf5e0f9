import { AppError, accountsRpc, type SendingSettings, type UpdateSendingSettingsRequest } from "@mailroom/contracts";
import { Batcher, ExpiringMap, isId, type RpcClient, TURN_LOOKUPS, type Sql } from "@mailroom/kit";
import { type DomainOfProject, domainsRepo } from "../db/domains-repo.js";
import { settingsRepo } from "../db/settings-repo.js";
import { type BlockingQuery, type Suppression, type SuppressionReason, suppressionsRepo } from "../db/suppressions-repo.js";
import { templatesRepo } from "../db/templates-repo.js";
import { domainOf } from "../domain/domains.js";

/*
 * The reads every /v1/send makes. The reads of one event-loop turn (the sends of one coalesced RPC
 * message) share one query each, and some answers are kept for a second, so a steady sender's
 * checks cost no query at all. Built once in app.ts; the repositories stay free of state.
 */

/** Whether a project has a domain VERIFIED. */
export class VerifiedDomains {
  private readonly turn: Batcher<DomainOfProject, boolean>;
  /**
   * "project domain" pairs answered VERIFIED, reused for a second. A domain deleted through another
   * replica may pass this check for up to that second, and its mail is then failed by the delivery
   * worker, which reads the domain again before it signs.
   */
  private readonly recent = new ExpiringMap<string, true>(10_000, 1000);

  constructor(sql: Sql) {
    this.turn = new Batcher((asked: DomainOfProject[]) => domainsRepo.verifiedMany(sql, asked), TURN_LOOKUPS);
  }

  async isVerified(projectId: string, domain: string): Promise<boolean> {
    const key = `${projectId} ${domain}`;
    if (this.recent.get(key)) return true;
    const verified = await this.turn.add({ projectId, domain });
    if (verified) this.recent.set(key, true);
    return verified;
  }

  /** 403 unless the sender's domain is verified in this very project. */
  async assertSender(projectId: string, from: string): Promise<void> {
    const domain = domainOf(from);
    if (!(await this.isVerified(projectId, domain))) {
      throw new AppError("DOMAIN_NOT_VERIFIED", `The domain ${domain} is not verified in this project`);
    }
  }

  /** After a domain is deleted here. Its name is not at hand and deletions are rare: every answer goes. */
  forget(): void {
    this.recent.clear();
  }
}

/** Per-project sending settings. A change made here replaces the answer at once; one made through another replica is seen within the second. */
export class ProjectSettings {
  private readonly turn: Batcher<string, SendingSettings>;
  private readonly recent = new ExpiringMap<string, SendingSettings>(10_000, 1000);

  constructor(
    private readonly sql: Sql,
    private readonly domains: VerifiedDomains,
  ) {
    this.turn = new Batcher((ids: string[]) => settingsRepo.getMany(sql, ids), TURN_LOOKUPS);
  }

  async get(projectId: string): Promise<SendingSettings> {
    const hit = this.recent.get(projectId);
    if (hit) return hit;
    const settings = await this.turn.add(projectId);
    this.recent.set(projectId, settings);
    return settings;
  }

  /** A double opt-in template must be one the confirmation can carry (`confirmationTemplateProblem`). */
  async update(projectId: string, patch: UpdateSendingSettingsRequest): Promise<SendingSettings> {
    const templateId = patch.doubleOptIn?.templateId;
    const problem = templateId ? await this.confirmationTemplateProblem(projectId, templateId) : null;
    if (problem) throw AppError.validation(problem, [{ path: "doubleOptIn.templateId", message: problem }]);
    const current = await this.turn.add(projectId);
    const { doubleOptIn, ...rest } = patch;
    const next: SendingSettings = {
      ...current,
      ...rest,
      ...(doubleOptIn
        ? { doubleOptIn: { enabled: doubleOptIn.enabled, templateId: doubleOptIn.templateId !== undefined ? doubleOptIn.templateId : current.doubleOptIn.templateId } }
        : {}),
    };
    const saved = await settingsRepo.save(this.sql, projectId, next);
    this.recent.set(projectId, saved);
    return saved;
  }

  /**
   * Why a template cannot be the double opt-in confirmation, or null when it can: it must be the
   * project's, and its sender on a domain verified in the project, since a confirmation carries the
   * tenant's words only from its own domain (decisions.md §15).
   */
  private async confirmationTemplateProblem(projectId: string, templateId: string): Promise<string | null> {
    const template = isId(templateId) ? await templatesRepo.get(this.sql, projectId, templateId) : null;
    if (!template) return "not a template of this project";
    if (!template.from) return "the template has no sender: a confirmation in the project's words goes from its own verified domain";
    if (!(await this.domains.isVerified(projectId, domainOf(template.from)))) {
      return `the template's sender domain ${domainOf(template.from)} is not verified in this project`;
    }
    return null;
  }
}

/** What keeps mail from addresses (suppressionsRepo.blockingAll), for one check at a time. */
export class SuppressionChecks {
  private readonly turn: Batcher<BlockingQuery, Map<string, Suppression>>;

  constructor(private readonly sql: Sql) {
    this.turn = new Batcher((asked: BlockingQuery[]) => suppressionsRepo.blockingAll(sql, asked), TURN_LOOKUPS);
  }

  blocking(projectId: string, emails: string[], marketing: boolean): Promise<Map<string, Suppression>> {
    return this.turn.add({ projectId, emails, marketing });
  }

  /**
   * The addresses asked for mail again (a resubscription at `at`): their bounce suppressions older
   * than that go, and their complaints too when the recipient asked (`complaints`) rather than an API key.
   */
  async lift(projectId: string, emails: string[], at: Date, complaints: boolean): Promise<void> {
    await suppressionsRepo.lift(this.sql, projectId, emails, at, complaints ? ["bounce", "complaint"] : ["bounce"]);
  }

  /** The operator's lift: every suppression of the address in the project, a complaint's included. */
  liftByOperator(projectId: string, email: string): Promise<SuppressionReason[]> {
    return suppressionsRepo.liftAll(this.sql, projectId, email);
  }
}

/**
 * Project names, asked of the gateway (it owns projects) for the fixed confirmation text, and kept
 * for a minute: a rename reaches confirmation emails that late.
 */
export class ProjectNames {
  private readonly recent = new ExpiringMap<string, string | null>(10_000, 60_000);

  constructor(private readonly rpc: RpcClient) {}

  async get(projectId: string): Promise<string | null> {
    const hit = this.recent.get(projectId);
    if (hit !== undefined) return hit;
    const { name } = await this.rpc.call(accountsRpc.projectName, { projectId });
    this.recent.set(projectId, name);
    return name;
  }
}
