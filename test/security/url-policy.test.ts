import { describe, expect, it } from "vitest";
import { isPrivateHost, outboundUrlProblem, urlPolicyOf } from "../../src/security/url-policy";

const strict = { allowPrivateHosts: false };

describe("outboundUrlProblem: schemes", () => {
  it.each(["file:///etc/passwd", "javascript:alert(1)", "data:text/plain,hi", "ftp://example.com/x", "ws://example.com/", "gopher://example.com/"])(
    "refuses %s",
    (url) => {
      expect(outboundUrlProblem(url)).toMatch(/^Must be an http\(s\) URL/);
    },
  );

  it.each(["not a url", "/relative/path", "", "http://"])("refuses %j as not an absolute URL", (url) => {
    expect(outboundUrlProblem(url)).toBeDefined();
  });

  it.each(["https://api.openai.com/v1", "http://localhost:11434/v1", "HTTPS://Example.COM/x?y=1", "http://10.0.0.5:8080/"])(
    "accepts %s with the default policy",
    (url) => {
      expect(outboundUrlProblem(url)).toBeUndefined();
    },
  );
});

describe("outboundUrlProblem with ALLOW_PRIVATE_URLS = \"false\"", () => {
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

describe("urlPolicyOf", () => {
  it("allows private hosts unless the var is \"false\"", () => {
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
