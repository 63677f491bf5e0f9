import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Objm, type ObjectStore } from "@nats-io/obj";
import type { NatsConnection } from "@nats-io/transport-node";
import { randomUUID } from "node:crypto";

/** A streamed put passed its byte bound; nothing of it is left in the store. */
export class BlobTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`blob larger than ${maxBytes} bytes`);
  }
}

/**
 * The store has no room for the blob (BLOBS_MAX_BYTES, the bound on all blobs together); nothing of
 * it is left in the store. Try again once older blobs have been taken or expired.
 */
export class BlobStoreFull extends Error {
  constructor() {
    super("the blob store is full");
  }
}

/** nats-server's refusal of a write to a stream at its max_bytes (with discard: new). */
const isStoreFull = (err: unknown) => /maximum bytes|insufficient (storage|resources)/i.test(String((err as Error)?.message ?? err));

/** Chunk size of streamed blobs: a few NATS messages of the default 1 MB max_payload in flight at most. */
const STREAM_CHUNK = 256 * 1024;
/** Chunks a reader holds ahead of its consumer. */
const READ_AHEAD = 4;

/** Header naming an object-store entry that holds the real payload (claim check). */
export const BLOB_HEADER = "Mailroom-Blob";

/**
 * NATS messages are bounded by the server's max_payload (1 MB by default), but /v1/send accepts
 * 40 MB. Payloads above the bound go through a JetStream object store and the message carries only
 * their name. Entries expire after an hour, so a crash between put and get leaks nothing for long.
 * With `maxBytes` (BLOBS_MAX_BYTES) the store holds at most that many bytes in all, so uploads
 * cannot fill the server's disk (decisions.md §15): a put past it fails with BlobStoreFull.
 */
export class Blobs {
  private store: Promise<ObjectStore> | undefined;
  readonly threshold: number;

  constructor(
    private readonly nc: NatsConnection,
    private readonly bucket: string,
    /** Bound on the whole store; undefined leaves the store's bound as it is (the CLI, tests). */
    private readonly maxBytes?: number,
    /** Copies of each blob on a cluster (NATS_REPLICAS), as the streams have. */
    private readonly replicas = 1,
  ) {
    // Leave room for headers and the envelope around the payload.
    this.threshold = Math.max(16 * 1024, (nc.info?.max_payload ?? 1024 * 1024) - 64 * 1024);
  }

  private open(): Promise<ObjectStore> {
    this.store ??= this.openStore().catch((err) => {
      this.store = undefined;
      throw err;
    });
    return this.store;
  }

  /** The bucket, made with the bound, or given it when it was made without (or with another). */
  private async openStore(): Promise<ObjectStore> {
    const bound = this.maxBytes === undefined ? {} : { max_bytes: this.maxBytes };
    const store = await new Objm(this.nc).create(this.bucket, { ttl: 60 * 60 * 1e9, replicas: this.replicas, ...bound });
    if (this.maxBytes !== undefined) {
      const jsm = await jetstreamManager(this.nc);
      const { config } = await jsm.streams.info(`OBJ_${this.bucket}`);
      if (config.max_bytes !== this.maxBytes) await jsm.streams.update(config.name, { ...config, max_bytes: this.maxBytes });
    }
    return store;
  }

  async put(data: Uint8Array): Promise<string> {
    const name = randomUUID();
    try {
      await (await this.open()).putBlob({ name }, data);
    } catch (err) {
      throw isStoreFull(err) ? new BlobStoreFull() : err;
    }
    return name;
  }

  /**
   * Stores a stream (an upload) without holding it: chunk by chunk as it arrives. Past `maxBytes`
   * the put fails with BlobTooLarge and the chunks already stored are purged (nats.js purges what a
   * failed put left).
   */
  async putStream(source: AsyncIterable<Uint8Array>, maxBytes: number): Promise<{ name: string; bytes: number }> {
    const name = randomUUID();
    let bytes = 0;
    const it = source[Symbol.asyncIterator]();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await it.next();
        if (done) return controller.close();
        bytes += value.byteLength;
        if (bytes > maxBytes) {
          await it.return?.();
          return controller.error(new BlobTooLarge(maxBytes));
        }
        controller.enqueue(value);
      },
      async cancel() {
        await it.return?.();
      },
    });
    const store = await this.open();
    try {
      await store.put({ name, options: { max_chunk_size: STREAM_CHUNK } }, stream);
    } catch (err) {
      if (bytes > maxBytes) throw new BlobTooLarge(maxBytes);
      if (isStoreFull(err)) throw new BlobStoreFull();
      throw err;
    }
    return { name, bytes };
  }

  /**
   * A stored blob's bytes, chunk by chunk, with at most READ_AHEAD chunks fetched ahead of the
   * reader (nats.js's own `get` pushes the whole object into memory as fast as the server sends it).
   * Null when it is missing or expired.
   */
  async readStream(name: string): Promise<AsyncIterable<Uint8Array> | null> {
    const store = await this.open();
    const info = await store.info(name);
    if (!info || info.deleted) return null;
    const stream = `OBJ_${this.bucket}`;
    const subject = `$O.${this.bucket}.C.${info.nuid}`;
    const nc = this.nc;
    return {
      async *[Symbol.asyncIterator]() {
        if (info.chunks === 0) return;
        // one subject as a string: nats.js then sends `filter_subject`, which servers before 2.10 take
        const consumer = await jetstream(nc).consumers.get(stream, { filter_subjects: subject });
        const messages = await consumer.consume({ max_messages: READ_AHEAD });
        try {
          let seen = 0;
          for await (const m of messages) {
            if (m.data.byteLength > 0) yield m.data;
            if (++seen >= info.chunks || m.info.pending === 0) break;
          }
        } finally {
          messages.stop();
        }
      },
    };
  }

  async delete(name: string): Promise<void> {
    await (await this.open()).delete(name);
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
