import postgres from "postgres";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";

/** Drops every database named `<dbPrefix>_*` (terminating its connections first). */
export async function dropDatabases(databaseUrl: string, dbPrefix: string): Promise<void> {
  const url = new URL(databaseUrl);
  url.pathname = "/postgres";
  const sql = postgres(url.toString(), { max: 1, onnotice: () => undefined });
  try {
    const rows = await sql<{ datname: string }[]>`select datname from pg_database where datname like ${`${dbPrefix}\\_%`}`;
    for (const { datname } of rows) {
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${datname} and pid <> pg_backend_pid()`;
      await sql.unsafe(`drop database if exists "${datname}"`);
    }
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Deletes every stream (including KV and object-store buckets) whose name carries the prefix. */
export async function deleteStreams(natsUrl: string, natsPrefix: string): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    const up = natsPrefix.toUpperCase().replace(/-/g, "_");
    const names: string[] = [];
    for await (const s of jsm.streams.list()) names.push(s.config.name);
    for (const name of names) {
      const n = name.toUpperCase();
      if (n.startsWith(`${up}_`) || n.startsWith(`KV_${up}`) || n.startsWith(`OBJ_${up}`)) {
        await jsm.streams.delete(name).catch(() => undefined);
      }
    }
  } finally {
    await nc.close();
  }
}
