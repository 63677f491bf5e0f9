import ipaddr from "ipaddr.js";

/**
 * The bucket a client address is limited in: an IPv4 address (an IPv4-mapped IPv6 one too) as it
 * is, an IPv6 address by its /64. One subscriber line gets a whole /64, so limiting single IPv6
 * addresses would let anyone change address at will and never be limited.
 */
export function clientBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === "ipv4") return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(":")}::/64`;
}
