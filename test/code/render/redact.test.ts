/**
 * redact: true, format by format. Each sample is built from pieces so that this file itself does
 * not hold a string a secret scanner would flag; each must lose its secret part and keep the text
 * around it. A near miss per family stays shown: redaction is for credentials, not for code.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { redactText } from "../../../src/code/render/redact.js";
import { treesRemovedAfter } from "../helpers.js";
import { ctx, makeService } from "../service-helpers.js";

const tree = treesRemovedAfter(after);

const alnum = (n: number, seed = 7) => {
  const chars = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  let out = "";
  for (let i = 0; i < n; i++) out += chars[(i * seed + 3) % chars.length];
  return out;
};
const hex = (n: number) => "0123456789abcdef".repeat(Math.ceil(n / 16)).slice(0, n);
const upper = (n: number) => "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".repeat(4).slice(0, n);
const b64 = (n: number) => "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7".repeat(4).slice(0, n);

/** [format, line, the secret that must disappear, text that must stay] */
const FORMATS: [string, string, string, string][] = (() => {
  const stripe = `sk_${"live"}_${alnum(24)}`;
  const stripeRestricted = `rk_${"live"}_${alnum(24, 5)}`;
  const azureKey = `${b64(86)}==`;
  const aws = `AKIA${upper(16)}`;
  const awsTemporary = `ASIA${upper(16)}`;
  const github = `ghp_${alnum(36)}`;
  const githubFine = `github_pat_${alnum(22)}_${alnum(59, 5)}`;
  const gitlab = `glpat-${alnum(20)}`;
  const gitlabRunner = `glrt-${alnum(20, 11)}`;
  const slack = `xoxb-${hex(12)}-${hex(13)}-${alnum(24)}`;
  const slackHook = `https://hooks.slack.com/services/T${upper(8)}/B${upper(8)}/${alnum(24)}`;
  const google = `AIza${alnum(35)}`;
  const googleSecret = `GOCSPX-${alnum(28)}`;
  const jwt = `eyJ${alnum(20)}.eyJ${alnum(30, 5)}.${alnum(43, 11)}`;
  const npm = `npm_${alnum(36)}`;
  const pypi = `pypi-AgEIcHlwaS5vcmc${alnum(60)}`;
  const hf = `hf_${alnum(34)}`;
  const vault = `hvs.${alnum(90)}`;
  const sendgrid = `SG.${alnum(22)}.${alnum(43, 5)}`;
  const openai = `sk-proj-${alnum(48)}`;
  const docker = `dckr_pat_${alnum(27)}`;
  const digitalocean = `dop_v1_${hex(64)}`;
  const shopify = `shpat_${hex(32)}`;
  return [
    ["Stripe secret key", `Stripe.apiKey = "${stripe}";`, stripe, "Stripe.apiKey"],
    ["Stripe secret key, bare", `STRIPE=${stripe}`, stripe, "STRIPE="],
    ["Stripe restricted key", `client(${stripeRestricted})`, stripeRestricted, "client("],
    [
      "Azure storage connection string",
      `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${azureKey};EndpointSuffix=core.windows.net`,
      azureKey.slice(0, 40),
      "AccountName=acct;AccountKey=",
    ],
    [
      "Azure Service Bus connection string",
      `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${b64(44)}=`,
      b64(44),
      "SharedAccessKeyName=Root",
    ],
    ["mysql -p<password>", "mysql -u root -pHunter2Secret shop", "Hunter2Secret", "mysql -u root -p"],
    [
      "mysqldump -p'<password>'",
      "mysqldump -h db -p'Hunter2Secret' shop",
      "Hunter2Secret",
      "mysqldump -h db",
    ],
    ["AWS access key id", `aws_access_key_id = ${aws}`, aws, "aws_access_key_id"],
    ["AWS temporary key id", `key: ${awsTemporary}`, awsTemporary, "key:"],
    ["AWS secret access key", `aws_secret_access_key = ${alnum(40)}`, alnum(40), "aws_secret_access_key"],
    ["GitHub personal token", `git clone https://${github}@github.com/o/r`, github, "github.com/o/r"],
    ["GitHub fine-grained token", `GH=${githubFine}`, githubFine, "GH="],
    ["GitLab personal token", `curl -H "PRIVATE-TOKEN: ${gitlab}"`, gitlab, "curl -H"],
    ["GitLab runner token", `runner ${gitlabRunner}`, gitlabRunner, "runner"],
    ["Slack bot token", `slack(${slack})`, slack, "slack("],
    ["Slack webhook", `post("${slackHook}")`, slackHook.slice(-24), "post("],
    ["Google API key", `const key = "${google}"`, google, "const key"],
    ["Google OAuth client secret", `client_secret_value: ${googleSecret}`, googleSecret, "client_secret"],
    ["JWT", `Authorization: ${jwt}`, jwt, "Authorization"],
    ["npm token", `//registry.npmjs.org/:_authToken=${npm}`, npm, "registry.npmjs.org"],
    ["npm token, bare", `use ${npm} here`, npm, "here"],
    ["PyPI token", `password = ${pypi}`, pypi, "password ="],
    ["Hugging Face token", `login(${hf})`, hf, "login("],
    ["Vault token", `VAULT=${vault}`, vault, "VAULT="],
    ["SendGrid key", `sg(${sendgrid})`, sendgrid, "sg("],
    ["OpenAI project key", `OPENAI=${openai}`, openai, "OPENAI="],
    ["Docker Hub token", `echo ${docker} | docker login`, docker, "docker login"],
    ["DigitalOcean token", `do(${digitalocean})`, digitalocean, "do("],
    ["Shopify token", `shop(${shopify})`, shopify, "shop("],
    ["URL password", "postgres://app:Hunter2Secret@db:5432/x", "Hunter2Secret", "postgres://app:"],
    [
      "inline PEM",
      `"private_key": "-----BEGIN PRIVATE KEY-----\\n${b64(64)}\\n${b64(20)}\\n-----END PRIVATE KEY-----\\n"`,
      b64(64),
      "-----BEGIN PRIVATE KEY-----",
    ],
  ];
})();

describe("redaction", () => {
  for (const [format, line, secret, kept] of FORMATS) {
    it(`G26: masks a ${format}`, () => {
      const { text, masked } = redactText(line);
      assert.ok(masked > 0, `${format}: nothing masked in ${line}`);
      assert.ok(!text.includes(secret), `${format}: ${text}`);
      assert.ok(text.includes(kept), `${format}: lost "${kept}" in ${text}`);
    });
  }

  it("G26: masks every line of a PEM body, its short last line included", () => {
    const body = [b64(64), b64(64).split("").reverse().join(""), "AQAB7xQz"];
    const lines = ["-----BEGIN RSA PRIVATE KEY-----", ...body, "-----END RSA PRIVATE KEY-----"];
    const shown = lines.map((line, i) => redactText(line, i > 0 ? lines[i - 1] : undefined).text);
    assert.equal(shown[0], lines[0]);
    assert.equal(shown[4], lines[4]);
    for (const [i, line] of body.entries()) assert.ok(!shown[i + 1]?.includes(line), `line ${i + 1}`);
    // A one-line body is its own last line: it follows the BEGIN line.
    assert.equal(redactText("MIIBOgIBAAJB", "-----BEGIN EC PRIVATE KEY-----").text, "[redacted]");
    // A padded tail is recognized without the line before it.
    assert.equal(redactText("x9Qz/A+b==").text, "[redacted]");
  });

  it("G26: without the line before it, a short PEM last line that looks random is masked, a word is not", () => {
    assert.equal(redactText("AQAB7xQz").text, "[redacted]");
    assert.equal(redactText("  Xk3Pq9+/Wm2Zr8Tb").text, "[redacted]");
    // The line before known and not a PEM line: not a PEM tail, however random it looks.
    assert.equal(redactText("AQAB7xQz", "  const x = 1;").text, "AQAB7xQz");
    // A word or identifier alone on its line lacks one of lower case, upper case and digits.
    for (const word of ["endTime", "Configuration", "version2", "README", "x86_64", "sha256sum"]) {
      assert.equal(redactText(word).text, word, word);
    }
  });

  it("G26: leaves ordinary code alone", () => {
    for (const line of [
      "const token = getToken();",
      "mysql -u root -p shop",
      "function skipLive() { return sk_live; }",
      "import { AccountKeyCredential } from './azure';",
      "return a + b;",
      "npm_config_cache",
      "// the -----BEGIN marker is parsed below",
      "endTime",
    ]) {
      assert.equal(redactText(line).text, line, line);
    }
    // A short word after ordinary code is not a PEM tail.
    assert.equal(redactText("return", "  const x = 1;").text, "return");
  });

  it("G26: a search shows no line of a PEM body in matches or context, and its counts are unchanged", async () => {
    const body = [b64(64), b64(64).split("").reverse().join(""), "AQAB7xQz"];
    const root = await tree({
      "key.pem": ["-----BEGIN PRIVATE KEY-----", ...body, "-----END PRIVATE KEY-----", ""].join("\n"),
    });
    const service = makeService(root);
    for (const pattern of ["PRIVATE KEY", "AQAB7xQz", "MIIEvQ"]) {
      const plain = await service.run({ pattern, context: 3, mode: "matches" }, ctx());
      const masked = await service.run({ pattern, context: 3, mode: "matches", redact: true }, ctx());
      assert.ok(
        body.some((line) => plain.text.includes(line)),
        pattern,
      );
      // The first line repeats the pattern; the rest is the file's text.
      const shown = masked.text.slice(masked.text.indexOf("\n"));
      for (const line of body) assert.ok(!shown.includes(line), `${pattern}: ${masked.text}`);
      assert.equal(masked.data.totalMatches, plain.data.totalMatches);
    }
    await service.close();
  });

  it("G26: without context, a PEM body's short last line is masked from the line before it in the file", async () => {
    const body = [b64(64), b64(64).split("").reverse().join(""), "AQAB7xQz"];
    const root = await tree({
      "key.pem": ["-----BEGIN PRIVATE KEY-----", ...body, "-----END PRIVATE KEY-----", ""].join("\n"),
      // Random-looking, but after an ordinary line: read from the file, it is shown as it is.
      "notes.txt": "build id:\nAbc123Xyz9\n",
    });
    const service = makeService(root);
    try {
      for (const pattern of ["AQAB7xQz", "^[A-Za-z0-9]{8,12}$"]) {
        const masked = await service.run({ pattern, context: 0, mode: "matches", redact: true }, ctx());
        const shown = masked.text.slice(masked.text.indexOf("\n"));
        assert.ok(!shown.includes("AQAB7xQz"), `${pattern}: ${masked.text}`);
        if (pattern.startsWith("^")) assert.match(shown, /Abc123Xyz9/);
      }
      // An inspection starting at the last line reads the line before it the same way.
      const inspected = await service.run({ path: "key.pem", line: 4, redact: true }, ctx());
      assert.ok(!inspected.text.includes("AQAB7xQz"), inspected.text);
    } finally {
      await service.close();
    }
  });
});
