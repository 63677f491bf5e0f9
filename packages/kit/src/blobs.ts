import { Objm, type ObjectStore } from "@nats-io/obj";
import type { NatsConnection } from "@nats-io/transport-node";
import { randomUUID } from "node:crypto";

/** Header naming an object-store entry that holds the real payload (claim check). */
export const BLOB_HEADER = "Mailroom-Blob";

/**
 * NATS messages are bounded by the server's max_payload (1 MB by default), but /v1/send accepts
 * 40 MB. Payloads above the bound go through a JetStream object store and the message carries only
 * their name. Entries expire after an hour, so a crash between put and get leaks nothing for long.
 */
export class Blobs {
  private store: Promise<ObjectStore> | undefined;
  readonly threshold: number;

  constructor(
    private readonly nc: NatsConnection,
    private readonly bucket: string,
  ) {
    // Leave room for headers and the envelope around the payload.
    this.threshold = Math.max(16 * 1024, (nc.info?.max_payload ?? 1024 * 1024) - 64 * 1024);
  }

  private open(): Promise<ObjectStore> {
    this.store ??= new Objm(this.nc).create(this.bucket, { ttl: 60 * 60 * 1e9 }).catch((err) => {
      this.store = undefined;
      throw err;
    });
    return this.store;
  }

  async put(data: Uint8Array): Promise<string> {
    const name = randomUUID();
    await (await this.open()).putBlob({ name }, data);
    return name;
  }

  /** Reads and deletes: a blob is read by exactly one receiver. */
  async take(name: string): Promise<Uint8Array> {
    const store = await this.open();
    const data = await store.getBlob(name);
    if (!data) throw new Error(`blob ${name} is missing or expired`);
    store.delete(name).catch(() => undefined);
    return data;
  }
}
