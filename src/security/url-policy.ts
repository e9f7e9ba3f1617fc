/**
 * The one rule for URLs the gateway itself calls (`model.baseURL`, gateway
 * tool URLs, MCP server URLs, webhooks): `http:` or `https:` only, and, when
 * the Worker var `ALLOW_PRIVATE_URLS` is `"false"`, never a loopback,
 * private, link-local or otherwise non-public host (IPv4, IPv6, `localhost`,
 * `*.localhost`). Private hosts are allowed by default because `wrangler dev`
 * talks to local model servers and tools. Checked when a config is saved and
 * again right before each request, on the URL as it will be sent.
 *
 * Hosts are judged by name or literal address only: a public name that
 * resolves to a private address is not caught here (a deployed Worker cannot
 * reach private networks anyway, unless they are exposed through a tunnel).
 */
import { z } from "@hono/zod-openapi";

export type UrlPolicy = { allowPrivateHosts: boolean };

/** The policy this deployment chose: private hosts allowed unless `ALLOW_PRIVATE_URLS` is `"false"`. */
export function urlPolicyOf(env: Record<string, unknown> | undefined): UrlPolicy {
  const setting = env?.ALLOW_PRIVATE_URLS;
  return { allowPrivateHosts: !(typeof setting === "string" && setting.trim().toLowerCase() === "false") };
}

/** Why the gateway may not call `url`, or undefined when it may. */
export function outboundUrlProblem(url: string, policy: UrlPolicy = { allowPrivateHosts: true }): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "Must be an absolute http(s) URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `Must be an http(s) URL (not ${parsed.protocol.replace(/:$/, "")})`;
  }
  if (parsed.hostname === "") return "Must name a host";
  // Credentials in a URL would be sent to whatever host the rest names; configured secrets go in headers.
  if (parsed.username !== "" || parsed.password !== "") return "Must not carry a user name or password (put credentials in a header)";
  if (!policy.allowPrivateHosts && isPrivateHost(parsed.hostname)) {
    return `The host "${parsed.hostname}" is loopback, private or link-local, which this deployment does not call (ALLOW_PRIVATE_URLS = "false")`;
  }
  return undefined;
}

/** A zod string for a URL the gateway will call: scheme checked here, the host policy when the env is known. */
export const OutboundUrl = z
  .string()
  .max(4096)
  .superRefine((value, context) => {
    const problem = outboundUrlProblem(value);
    if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
  });

/**
 * True for hosts that are not on the public internet: `localhost` and
 * `*.localhost`, and literal IPv4/IPv6 addresses that are loopback,
 * unspecified, private, shared (CGNAT), link-local, multicast or reserved,
 * including IPv4 addresses embedded in IPv6 ones. `hostname` is as the WHATWG
 * URL parser gives it (IPv4 normalised to dotted decimal, IPv6 in brackets).
 */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.+$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host.startsWith("[") && host.endsWith("]")) {
    const groups = ipv6Groups(host.slice(1, -1));
    return groups === undefined ? true : isPrivateIpv6(groups);
  }
  const ipv4 = ipv4Octets(host);
  return ipv4 !== undefined && isPrivateIpv4(ipv4);
}

function ipv4Octets(host: string): number[] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!match) return undefined;
  const octets = match.slice(1).map(Number);
  return octets.every((octet) => octet <= 255) ? octets : undefined;
}

/** [first address, prefix length] of the IPv4 ranges that are not public. */
const privateIpv4Ranges: [number[], number][] = [
  [[0, 0, 0, 0], 8], // "this network", including 0.0.0.0
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10], // shared address space (CGNAT)
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16], // link-local, including cloud metadata endpoints
  [[172, 16, 0, 0], 12],
  [[192, 0, 0, 0], 24],
  [[192, 168, 0, 0], 16],
  [[198, 18, 0, 0], 15],
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, including 255.255.255.255
];

function isPrivateIpv4(octets: number[]): boolean {
  const address = ipv4Number(octets);
  return privateIpv4Ranges.some(([start, prefix]) => {
    const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
    return (address & mask) >>> 0 === (ipv4Number(start) & mask) >>> 0;
  });
}

function ipv4Number(octets: number[]): number {
  return ((octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0;
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a dotted IPv4 tail), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.split("%")[0];
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted) {
    const octets = ipv4Octets(dotted[1]);
    if (!octets) return undefined;
    text = `${text.slice(0, -dotted[1].length)}${((octets[0] << 8) | octets[1]).toString(16)}:${((octets[2] << 8) | octets[3]).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => (/^[0-9a-f]{1,4}$/i.test(group) ? parseInt(group, 16) : Number.NaN)));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.some(Number.isNaN) ? undefined : groups;
}

/**
 * An IPv6 address is judged by where it leads. The transition forms carry an
 * IPv4 address that traffic to them ends up at, so that address decides:
 * IPv4-mapped (`::ffff:0:0/96`) and -compatible (`::/96`), IPv4-translated
 * (`::ffff:0:0:0/96`, RFC 2765), NAT64's well-known prefix (`64:ff9b::/96`,
 * RFC 6052), 6to4 (`2002::/16`: bits 16–47), Teredo (`2001::/32`: the
 * server in bits 32–63, the client in the last 32 bits inverted; either one
 * private is enough) and ISATAP interface ids (`…:0:5efe:a.b.c.d`, with the
 * u/g bits). The rest of `64:ff9b::/32` (the local-use NAT64 prefix
 * `64:ff9b:1::/48` of RFC 8215, and what is unassigned) leads into one
 * operator's network, never the public internet: refused whatever it embeds.
 */
function isPrivateIpv6(groups: number[]): boolean {
  const [first, second] = groups;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const ipv4Of = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff];
  const lastIpv4 = ipv4Of(groups[6], groups[7]);
  if (zeros(0, 7) && groups[7] <= 1) return true; // :: and ::1
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) return isPrivateIpv4(lastIpv4); // IPv4-mapped and IPv4-compatible
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return isPrivateIpv4(lastIpv4); // IPv4-translated
  if (first === 0x64 && second === 0xff9b) return zeros(2, 6) ? isPrivateIpv4(lastIpv4) : true; // NAT64: well-known, else local-use
  if (first === 0x2002) return isPrivateIpv4(ipv4Of(groups[1], groups[2])); // 6to4
  if (first === 0x2001 && second === 0) {
    return isPrivateIpv4(ipv4Of(groups[2], groups[3])) || isPrivateIpv4(ipv4Of(groups[6] ^ 0xffff, groups[7] ^ 0xffff)); // Teredo
  }
  if ((groups[4] & 0xfcff) === 0 && groups[5] === 0x5efe && isPrivateIpv4(lastIpv4)) return true; // ISATAP
  if (first === 0x100 && zeros(1, 4)) return true; // discard-only 100::/64
  if (first === 0x2001 && second === 0xdb8) return true; // documentation 2001:db8::/32
  if ((first & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80 || (first & 0xffc0) === 0xfec0) return true; // link-local, site-local
  if ((first & 0xff00) === 0xff00) return true; // multicast
  return false;
}
