/**
 * The services of the monorepo. `database` says whether it owns a PostgreSQL database
 * (`<DB_PREFIX>_<name>`); `opsPort` is the default port of its /livez, /readyz and /metrics server.
 */
export const SERVICES = {
  gateway: { database: true, opsPort: 9100 },
  contacts: { database: true, opsPort: 9101 },
  sending: { database: true, opsPort: 9102 },
  campaigns: { database: true, opsPort: 9103 },
  workflows: { database: true, opsPort: 9104 },
  verify: { database: false, opsPort: 9105 },
} as const;

export type ServiceName = keyof typeof SERVICES;
export const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];
