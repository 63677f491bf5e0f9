import {
  AppError,
  type ConditionConfig,
  type ErrorDetail,
  STEP_CONFIGS,
  type StepType,
  sendingRpc,
  zodDetails,
} from "@mailroom/contracts";
import { hostPort, ipLiteral, parseWebhookUrl, refusal, type RpcClient } from "@mailroom/kit";
import type { Resolve } from "../infra/resolver.js";

export interface ConfigCheckEnv {
  rpc: RpcClient;
  resolve: Resolve;
  allowedHosts: ReadonlySet<string>;
}

const invalid = (details: ErrorDetail[]) => AppError.validation("Invalid step config", details);

/** Field families CONDITION steps cannot evaluate here: the engine has no activity or segment facts. */
const UNSUPPORTED_CONDITION_FIELD = /^(segment\.|email\.(sent|delivered|opened|clicked|bounced|complained)$)/;

function conditionFields(config: ConditionConfig): string[] {
  const walk = (e: unknown): string[] => {
    const x = e as { field?: string; groups?: Array<{ filters: Array<{ field: string }>; conditions?: unknown }> };
    if (x.field !== undefined) return [x.field];
    return (x.groups ?? []).flatMap((g) => [...g.filters.map((f) => f.field), ...(g.conditions ? walk(g.conditions) : [])]);
  };
  return walk(config);
}

/**
 * Checks a step's config beyond its schema: the template exists in the project, a `from` domain is
 * verified, the webhook URL is allowed (unless it is a Liquid template, checked again after rendering
 * before every request anyway), CONDITION fields are ones the engine can evaluate.
 */
export async function checkStepConfig(env: ConfigCheckEnv, projectId: string, type: StepType, raw: unknown): Promise<Record<string, unknown>> {
  const parsed = STEP_CONFIGS[type].safeParse(raw);
  if (!parsed.success) throw invalid(zodDetails(parsed.error, "config"));
  const config = parsed.data as Record<string, unknown>;
  if (type === "SEND_EMAIL") {
    const { templateId, from } = config as { templateId: string; from?: string };
    const t = await env.rpc.call(sendingRpc.templateExists, { projectId, templateId });
    if (!t.exists) throw invalid([{ path: "config.templateId", message: "no template with this id in the project" }]);
    if (from) {
      const { verified } = await env.rpc.call(sendingRpc.domainVerified, { projectId, email: from });
      if (!verified) throw new AppError("DOMAIN_NOT_VERIFIED", `The domain of ${from} is not verified in this project`);
    }
  }
  if (type === "WEBHOOK") await checkWebhookUrl(env, String(config.url));
  if (type === "CONDITION") {
    const bad = conditionFields(config as ConditionConfig).filter((f) => UNSUPPORTED_CONDITION_FIELD.test(f));
    if (bad.length) {
      throw invalid(bad.map((f) => ({ path: "config", message: `field ${f} is not available in CONDITION steps (use contact, data.* or event.* fields)` })));
    }
  }
  return config;
}

const LIQUID = /\{\{.*?\}\}|\{%.*?%\}/g;

async function checkWebhookUrl(env: ConfigCheckEnv, raw: string): Promise<void> {
  const fail = (message: string) => invalid([{ path: "config.url", message }]);
  // Liquid parts are replaced by two different fillers: if the host changes, the host is a template
  // and only the rendered URL can be checked (before every request).
  const url = parseWebhookUrl(raw.replace(LIQUID, "x"));
  if (typeof url === "string") throw fail(url);
  const other = parseWebhookUrl(raw.replace(LIQUID, "y"));
  if (typeof other === "string" || other.host !== url.host) return;
  const refused = await addressRefusal(env, url);
  if (refused) throw fail(refused);
}

/**
 * Why a URL's host is refused by the address rule now, or null. A name that does not resolve now
 * passes: every request checks its target again (webhook-client.ts vetUrl).
 */
export async function addressRefusal(env: Pick<ConfigCheckEnv, "resolve" | "allowedHosts">, url: URL): Promise<string | null> {
  if (env.allowedHosts.has(hostPort(url))) return null;
  const literal = ipLiteral(url.hostname);
  const addresses = literal ? [literal] : await env.resolve(url.hostname, AbortSignal.timeout(5000)).catch(() => [] as string[]);
  return refusal(url.hostname, literal, addresses);
}
