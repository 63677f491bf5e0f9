import { connect } from "node:net";

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** From the first byte written to the whole answer read. */
  ms: number;
  /** Bytes of the body written before the answer came (or the server closed). */
  sent: number;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Body size, streamed in 64 KB writes for as long as the server reads (see the pause below). */
  bytes: number;
  /** Transfer-Encoding: chunked instead of a Content-Length. */
  chunked?: boolean;
}

const CHUNK = Buffer.alloc(64 * 1024, "a");

/**
 * One request over a raw socket, with a body the client keeps writing while the server reads it, as
 * a hostile client would. A fetch would race the connection the server closes after an early answer
 * (an error instead of the answer); here the answer is read whenever it comes.
 */
export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const started = performance.now();
    let raw = Buffer.alloc(0);
    let sent = 0;
    let done = false;
    const finish = (answer: RawAnswer | Error) => {
      if (done) return;
      done = true;
      socket.destroy();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const parse = (): RawAnswer | null => {
      const end = raw.indexOf("\r\n\r\n");
      if (end < 0) return null;
      const [statusLine, ...lines] = raw.subarray(0, end).toString("latin1").split("\r\n");
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      const length = Number(headers["content-length"] ?? 0);
      if (raw.length < end + 4 + length) return null;
      const body = raw.subarray(end + 4, end + 4 + length).toString("utf8");
      return { status: Number(statusLine!.split(" ")[1]), headers, body, ms: performance.now() - started, sent };
    };
    socket.on("data", (d) => {
      raw = Buffer.concat([raw, d]);
      const answer = parse();
      if (answer) finish(answer);
    });
    socket.on("error", (err) => finish(parse() ?? new Error(`${err.message} after ${sent} bytes, with no answer`)));
    socket.on("close", () => finish(parse() ?? new Error(`connection closed without an answer after ${sent} bytes`)));
    const head = [
      `${req.method} ${req.path} HTTP/1.1`,
      "Host: 127.0.0.1",
      ...Object.entries({ "content-type": "application/json", ...req.headers }).map(([k, v]) => `${k}: ${v}`),
      req.chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${req.bytes}`,
      "",
      "",
    ].join("\r\n");
    socket.write(head);
    // The first `pauseAfter` bytes, then a pause for an answer, then the rest as fast as the server
    // reads. A server that refuses early has answered by then, and the client writes nothing more: a
    // write after the server's close would fail, and the failure would discard the answer unread.
    const pauseAfter = Math.min(req.bytes, req.chunked ? 2 * CHUNK.length : 0);
    const write = (upTo: number, then: () => void) => {
      while (!done && sent < upTo) {
        const n = Math.min(CHUNK.length, upTo - sent);
        const piece = req.chunked ? Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), CHUNK.subarray(0, n), Buffer.from("\r\n")]) : CHUNK.subarray(0, n);
        sent += n;
        if (!socket.write(piece)) return void socket.once("drain", () => write(upTo, then));
      }
      if (!done) then();
    };
    write(pauseAfter, () =>
      setTimeout(() => write(req.bytes, () => req.chunked && socket.write("0\r\n\r\n")), 1500),
    );
  });
}
