/**
 * MCP clients for tests, through the official SDK: one connected over stdio to a process of the
 * built executable (or a script of the test's), one over Streamable HTTP; and the text a tool
 * result carries.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { EVIDENT_CLI } from "./built-cli.js";

export interface StdioServer {
  /** `evident mcp` by default; other arguments, or another script, as the test needs. */
  readonly args?: readonly string[];
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  readonly stderr?: "pipe" | "ignore" | "inherit";
  /** The client's name in `initialize`. */
  readonly name: string;
}

/** An MCP client connected over stdio to a process of the built executable. */
export async function connectStdio(
  server: StdioServer,
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(server.args ?? [EVIDENT_CLI, "mcp"])],
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    ...(server.env === undefined ? {} : { env: server.env }),
    ...(server.stderr === undefined ? {} : { stderr: server.stderr }),
  });
  const client = new Client({ name: server.name, version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/**
 * An MCP client connected over Streamable HTTP, with `token` as its bearer token and these
 * headers on every request; `auto` lets the client negotiate the protocol revision.
 */
export async function connectHttp(
  url: string,
  options: {
    readonly name: string;
    readonly token?: string;
    readonly headers?: Record<string, string>;
    readonly negotiation?: "legacy" | "auto";
  },
): Promise<Client> {
  const headers = {
    ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    ...options.headers,
  };
  const client = new Client(
    { name: options.name, version: "1.0.0" },
    options.negotiation === "auto" ? { versionNegotiation: { mode: "auto" } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** The text of a tool result's first content block ("" when there is none). */
export function textOf(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return first?.text ?? "";
}
