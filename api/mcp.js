/**
 * evident on Vercel (docs/DEPLOY.md): the package's web-standard MCP handler as a Node.js
 * function. vercel.json rewrites /mcp and /healthz here; a rewritten request keeps the path the
 * client asked for, which is what the handler routes on, so /api/mcp itself answers 404.
 * Settings come from the project's environment variables, as for `evident mcp --transport http`;
 * the host is public, as in the image (Dockerfile), so any Host header is accepted unless
 * EVIDENT_ALLOWED_HOSTS names the deployment's domains.
 */
import { createHttpHandler } from "../dist/index.js";

const handler = createHttpHandler({ env: { EVIDENT_HTTP_HOST: "0.0.0.0", ...process.env } });

export default { fetch: (request) => handler.fetch(request) };
