// Child process for the lease takeover test: claims the one lease in LEASE_DB's `leases` table and
// works under it (a write every 20 ms that counts only while its token holds the lease) until the
// lease is lost; then prints how it learned and exits. The test stalls it with SIGSTOP meanwhile.
import { setTimeout as sleep } from "node:timers/promises";
import { Lease, openDatabase } from "@mailroom/kit";

const sql = openDatabase(process.env.LEASE_DB, { max: 2 });
const store = {
  claim: async (q, token, ms) =>
    (await q`update leases set lease_owner = ${token}, lease_until = now() + ${ms} * interval '1 millisecond'
      where lease_until is null or lease_until < now() returning id`)[0] ?? null,
  renew: async (q, id, token, ms) =>
    (await q`update leases set lease_until = now() + ${ms} * interval '1 millisecond' where id = ${id} and lease_owner = ${token} returning 1`).length > 0,
  release: async (q, id, token) => void (await q`update leases set lease_owner = null, lease_until = null where id = ${id} and lease_owner = ${token}`),
};
const { lease } = await Lease.claim(sql, store, { name: "test", ms: Number(process.env.LEASE_MS), log: console });
process.stdout.write(`claimed ${lease.token}\n`);
let how = "renewal";
while (!lease.lost) {
  const [work] = await sql`insert into work (token) select ${lease.token} where exists (select 1 from leases where lease_owner = ${lease.token}) returning 1`;
  if (!work) {
    how = "write";
    lease.lose();
  } else await sleep(20);
}
await lease.release();
process.stdout.write(`stopped by ${how}\n`);
await sql.end();
