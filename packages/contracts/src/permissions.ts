/**
 * Who may say what on NATS (decisions.md §12): each service connects as a user of its own, and the
 * server lets it publish and subscribe only where this catalog says. docker-compose
 * (deploy/compose/nats.conf), the Helm chart (deploy/helm) and the NATS tests all render it from
 * here; deploy/test checks the compose file and the chart against it, and that every internal call
 * in the services' code is listed below.
 *
 * The rules that matter: only the gateway sends requests to any operation (the API, the operator
 * CLI); a service calls only the operations listed for it; a service answers only its own
 * operations; a service reads replies only on its own inbox prefix, so it cannot listen to another
 * service's answers; only contacts and sending write to the streams they own.
 */
import { accountsRpc } from "./accounts/rpc.js";
import { contactsRpc } from "./contacts/rpc.js";
import { sendingRpc } from "./sending/rpc.js";
import { verifyRpc } from "./verify/rpc.js";
import { SERVICE_NAMES, type ServiceName } from "./services.js";
import { wireNames } from "./subjects.js";

const ops = (...defs: Array<{ operation: string }>) => defs.map((d) => d.operation);

/** Internal operations each service calls; the gateway may call every operation. */
export const RPC_CALLS: Record<Exclude<ServiceName, "gateway">, readonly string[]> = {
  contacts: ops(sendingRpc.confirmationEmail, sendingRpc.doubleOptIn, verifyRpc.address),
  sending: ops(
    contactsRpc.get,
    contactsRpc.setSubscription,
    contactsRpc.setTopics,
    contactsRpc.topics,
    contactsRpc.upsertMany,
    sendingRpc.templateInUse,
    accountsRpc.projectName,
  ),
  campaigns: ops(
    contactsRpc.get,
    contactsRpc.page,
    contactsRpc.validateFilter,
    sendingRpc.campaignLinks,
    sendingRpc.campaignThrottled,
    sendingRpc.messageChecks,
    sendingRpc.enqueue,
    sendingRpc.enqueueBatch,
    sendingRpc.domainVerified,
  ),
  workflows: ops(contactsRpc.get, contactsRpc.page, contactsRpc.upsert, sendingRpc.enqueue, sendingRpc.templateExists, sendingRpc.domainVerified),
  verify: [],
};

export interface NatsPermissions {
  publish: { allow: string[]; deny: string[] };
  subscribe: { allow: string[] };
}

/** The NATS user name of a service: one per installation (prefix), so two share a server safely. */
export function natsUser(prefix: string, service: ServiceName): string {
  return `${prefix}-${service}`;
}

/**
 * Where a service receives replies (nats.js `inboxPrefix`). Per service, so subscribe permissions
 * can keep one service from reading the replies meant for another.
 */
export function natsInboxPrefix(prefix: string, service: ServiceName): string {
  return `_INBOX.${prefix}.${service}`;
}

export function natsPermissions(prefix: string): Record<ServiceName, NatsPermissions> {
  const names = wireNames(prefix);
  const p = names.prefix;
  // Every service: the JetStream API (it creates its streams and consumers at start), acks and flow
  // control of its consumers, the blob store of large payloads, and replies to its callers.
  const common = ["$JS.API.>", "$JS.ACK.>", "$JS.FC.>", `$O.${names.buckets.blobs}.>`, `_INBOX.${p}.>`];
  // Streams are created by every service but never deleted by one.
  const deny = ["$JS.API.STREAM.DELETE.>"];
  const serve = (service: ServiceName) => [names.rpc(`${service}.>`), names.rpcBatch(`${service}.>`)];
  const calls = (ops: readonly string[]) => ops.flatMap((op) => [names.rpc(op), names.rpcBatch(op)]);
  const entry = (service: ServiceName, publish: string[], subscribe: string[] = []): NatsPermissions => ({
    publish: { allow: [...common, ...publish], deny },
    subscribe: { allow: [`${natsInboxPrefix(p, service)}.>`, ...serve(service), ...subscribe] },
  });
  const events = names.streams.events.subjects;
  // Every service that runs a durable consumer gives up poison messages to the dead-letter stream.
  const deadLetters = names.streams.deadLetters.subjects;
  const out: Record<ServiceName, NatsPermissions> = {
    gateway: entry("gateway", [names.rpc(">"), names.rpcBatch(">"), names.broadcast.keyRevoked], [names.broadcast.keyRevoked]),
    contacts: entry("contacts", [...events, ...names.streams.contactChanges.subjects, ...deadLetters, ...calls(RPC_CALLS.contacts)]),
    sending: entry("sending", [...events, ...names.streams.sendJobs.subjects, ...names.streams.transactionalJobs.subjects, ...deadLetters, ...calls(RPC_CALLS.sending)]),
    campaigns: entry("campaigns", [...deadLetters, ...calls(RPC_CALLS.campaigns)]),
    workflows: entry("workflows", [...deadLetters, ...calls(RPC_CALLS.workflows)]),
    verify: entry("verify", calls(RPC_CALLS.verify)),
  };
  return Object.fromEntries(SERVICE_NAMES.map((s) => [s, out[s]])) as Record<ServiceName, NatsPermissions>;
}

/**
 * The `authorization` block of a nats-server configuration with one user per service.
 * `password(service)` returns the value as it goes in the file: a quoted literal
 * (`JSON.stringify(pw)`) or a variable the server reads from its environment (`$NATS_…`).
 */
export function natsAuthorizationConf(prefix: string, password: (service: ServiceName) => string): string {
  const permissions = natsPermissions(prefix);
  const list = (values: string[]) => `[${values.map((v) => JSON.stringify(v)).join(", ")}]`;
  const users = SERVICE_NAMES.map((service) => {
    const { publish, subscribe } = permissions[service];
    return [
      "    {",
      `      user: ${JSON.stringify(natsUser(prefix, service))}`,
      `      password: ${password(service)}`,
      "      permissions: {",
      `        publish: { allow: ${list(publish.allow)}, deny: ${list(publish.deny)} }`,
      `        subscribe: { allow: ${list(subscribe.allow)} }`,
      "      }",
      "    }",
    ].join("\n");
  });
  return `authorization {\n  users: [\n${users.join("\n")}\n  ]\n}\n`;
}
