import { describe, expect, it } from "vitest";
import { isPrivateHost, outboundUrlProblem, urlPolicyOf } from "../../src/security/url-policy";

const strict = { allowPrivateHosts: false };

describe("outboundUrlProblem: schemes", () => {
  it.each(["file:///etc/passwd", "javascript:alert(1)", "data:text/plain,hi", "ftp://example.com/x", "ws://example.com/", "gopher://example.com/"])("refuses %s", (url) => {
    expect(outboundUrlProblem(url)).toMatch(/^Must be an http\(s\) URL/);
  });

  it.each(["not a url", "/relative/path", "", "http://"])("refuses %j as not an absolute URL", (url) => {
    expect(outboundUrlProblem(url)).toBeDefined();
  });

  it.each(["https://api.openai.com/v1", "http://localhost:11434/v1", "HTTPS://Example.COM/x?y=1", "http://10.0.0.5:8080/"])("accepts %s with the default policy", (url) => {
    expect(outboundUrlProblem(url)).toBeUndefined();
  });
});

describe('outboundUrlProblem with ALLOW_PRIVATE_URLS = "false"', () => {
  it.each([
    "http://localhost/",
    "http://LOCALHOST./",
    "http://api.localhost:8787/",
    "http://127.0.0.1/",
    "http://127.8.9.10/",
    "http://2130706433/", // 127.0.0.1 as one number
    "http://0x7f.1/", // 127.0.0.1 in hex shorthand
    "http://0.0.0.0/",
    "http://10.1.2.3/",
    "http://172.16.0.1/",
    "http://172.31.255.255/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
    "http://[::1]/",
    "http://[::]/",
    "http://[fe80::1]/",
    "http://[fd12:3456::1]/",
    "http://[fc00::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:10.0.0.1]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[2002:7f00:1::]/",
    "http://[ff02::1]/",
    "http://255.255.255.255/",
  ])("refuses %s", (url) => {
    expect(outboundUrlProblem(url, strict)).toMatch(/loopback, private or link-local/);
  });

  it.each(["https://api.openai.com/v1", "http://8.8.8.8/", "http://172.32.0.1/", "http://[2606:4700::1111]/", "http://[::ffff:8.8.8.8]/", "https://localhost.example.com/"])(
    "accepts %s",
    (url) => {
      expect(outboundUrlProblem(url, strict)).toBeUndefined();
    },
  );
});

describe('IPv6 spellings of loopback and private IPv4 addresses, with ALLOW_PRIVATE_URLS = "false"', () => {
  // Each form as a user might write it: compressed, expanded, with a dotted IPv4 tail, in upper case.
  const spellings: Record<string, string[]> = {
    "IPv4-translated ::ffff:0:0:0/96 (127.0.0.1)": [
      "[::ffff:0:127.0.0.1]",
      "[::ffff:0:7f00:1]",
      "[0:0:0:0:ffff:0:7f00:1]",
      "[0000:0000:0000:0000:FFFF:0000:7F00:0001]",
      "[::FFFF:0:127.0.0.1]",
    ],
    "IPv4-translated (10.0.0.1, 169.254.169.254)": ["[::ffff:0:10.0.0.1]", "[::ffff:0:a9fe:a9fe]"],
    "IPv4-mapped ::ffff:0:0/96 (127.0.0.1)": ["[::ffff:127.0.0.1]", "[0:0:0:0:0:ffff:7f00:1]", "[::FFFF:7F00:1]"],
    "IPv4-compatible ::/96 (127.0.0.1, 10.0.0.1)": ["[::127.0.0.1]", "[::7f00:1]", "[0:0:0:0:0:0:a00:1]"],
    "local-use NAT64 64:ff9b:1::/48": [
      "[64:ff9b:1::7f00:1]",
      "[64:ff9b:1::127.0.0.1]",
      "[0064:ff9b:0001:0000:0000:0000:7f00:0001]",
      "[64:FF9B:1::7F00:1]",
      "[64:ff9b:1:abcd::8.8.8.8]",
    ],
    "well-known NAT64 64:ff9b::/96 (127.0.0.1, 192.168.0.1)": ["[64:ff9b::127.0.0.1]", "[64:ff9b::7f00:1]", "[64:FF9B:0:0:0:0:C0A8:1]"],
    "6to4 2002::/16 (127.0.0.1, 10.1.2.3)": ["[2002:7f00:1::]", "[2002:7F00:0001:0:0:0:0:1]", "[2002:a01:203::1]"],
    "Teredo 2001::/32 (client 127.0.0.1)": ["[2001::80ff:fffe]", "[2001:0000:0000:0000:0000:0000:80ff:fffe]", "[2001:0:0:0:0:0:128.255.255.254]", "[2001::80FF:FFFE]"],
    "Teredo with a public server and a private client (192.168.1.1)": ["[2001:0:4136:e378:8000:63bf:3f57:fefe]"],
    "Teredo with a private server (10.0.0.1) and a public client": ["[2001:0:a00:1:8000:63bf:3fff:fdd2]"],
    "ISATAP interface ids (127.0.0.1, 10.0.0.1)": ["[2a00:1450:4001::5efe:7f00:1]", "[2a00:1450:4001::200:5efe:10.0.0.1]", "[2A00:1450:4001:0:0:5EFE:A00:1]"],
    "discard-only and documentation prefixes": ["[100::1]", "[2001:db8::1]"],
  };

  it.each(Object.entries(spellings).flatMap(([form, hosts]) => hosts.map((host) => [form, host])))("refuses %s: %s", (_form, host) => {
    expect(outboundUrlProblem(`http://${host}/`, strict)).toMatch(/loopback, private or link-local/);
    expect(outboundUrlProblem(`https://${host}:8443/v1?x=1`, strict)).toMatch(/loopback, private or link-local/);
    expect(isPrivateHost(host)).toBe(true);
  });

  it.each([
    ["Teredo, the RFC 4380 example (server 65.54.227.120, client 192.0.2.45)", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]"],
    ["well-known NAT64 of a public address", "[64:ff9b::8.8.8.8]"],
    ["6to4 of a public address", "[2002:808:808::1]"],
    ["IPv4-translated of a public address", "[::ffff:0:8.8.8.8]"],
    ["an ISATAP id of a public address", "[2a00:1450:4001::5efe:808:808]"],
    ["an ordinary global address", "[2a00:1450:4001:82a::200e]"],
  ])("accepts %s: %s", (_form, host) => {
    expect(outboundUrlProblem(`http://${host}/`, strict)).toBeUndefined();
  });

  it("judges the host as the URL parser gives it (compressed, lower case, no dotted tail)", () => {
    expect(new URL("http://[::ffff:0:127.0.0.1]/").hostname).toBe("[::ffff:0:7f00:1]");
    expect(new URL("http://[64:FF9B:1::127.0.0.1]/").hostname).toBe("[64:ff9b:1::7f00:1]");
    expect(new URL("http://[2001:0000:0000:0000:0000:0000:80ff:fffe]/").hostname).toBe("[2001::80ff:fffe]");
    expect(new URL("http://[::ffff:127.0.0.1]/").hostname).toBe("[::ffff:7f00:1]");
  });
});

describe("urlPolicyOf", () => {
  it('allows private hosts unless the var is "false"', () => {
    expect(urlPolicyOf({})).toEqual({ allowPrivateHosts: true });
    expect(urlPolicyOf(undefined)).toEqual({ allowPrivateHosts: true });
    expect(urlPolicyOf({ ALLOW_PRIVATE_URLS: "true" })).toEqual({ allowPrivateHosts: true });
    expect(urlPolicyOf({ ALLOW_PRIVATE_URLS: "false" })).toEqual({ allowPrivateHosts: false });
    expect(urlPolicyOf({ ALLOW_PRIVATE_URLS: " FALSE " })).toEqual({ allowPrivateHosts: false });
  });
});

describe("isPrivateHost", () => {
  it("judges names only by the localhost family", () => {
    expect(isPrivateHost("example.com")).toBe(false);
    expect(isPrivateHost("mylocalhost")).toBe(false);
    expect(isPrivateHost("a.b.localhost")).toBe(true);
  });

  it("treats an IPv6 literal it cannot read as private (fails closed)", () => {
    expect(isPrivateHost("[1:2:3]")).toBe(true);
  });
});
