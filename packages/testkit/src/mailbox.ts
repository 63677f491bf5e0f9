/**
 * Messages in a development mailbox (the SMTP sink), through its JSON API: all of them, or only those
 * to one of `to`. The sink filters, so a test polling for its own mail does not make the sink
 * serialise, and itself parse, every other message of the run on each poll.
 */
export async function sinkMessages(mailboxUrl: string, to?: Iterable<string>): Promise<Array<Record<string, any>>> {
  const url = new URL("/api/messages", mailboxUrl);
  for (const address of to ?? []) url.searchParams.append("to", address);
  const res = await fetch(url);
  if (!res.ok) throw new Error(`the mailbox answered ${res.status} to ${url}`);
  return (await res.json()) as Array<Record<string, any>>;
}
