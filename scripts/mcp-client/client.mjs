// Drives `cockpit serve-mcp` with the official MCP TypeScript SDK — a client nobody on the
// cockpit project wrote — over stdio and over streamable HTTP, and checks what a user would:
// the tools are listed, a read works, an in-mandate order is placed, an oversize order waits
// for a human approval given from another process, a halt refuses the next order, and the
// HTTP transport wants the bearer token.
//
// Usage: node client.mjs COCKPIT_BINARY FRESH_HOME   (or COCKPIT_BIN / COCKPIT_HOME in the env)
// Prints one line per step; exits non-zero on the first failure or after a hard timeout.
import { execFile, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const run = promisify(execFile);
const bin = process.argv[2] || process.env.COCKPIT_BIN;
const home = process.argv[3] || process.env.COCKPIT_HOME;
const overallMs = Number(process.env.MCP_CLIENT_TIMEOUT_MS || 90000);
if (!bin || !home) {
  console.error("usage: node client.mjs COCKPIT_BINARY FRESH_HOME");
  process.exit(2);
}

const children = [];
function killAll() {
  for (const c of children) {
    try {
      c.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}
const hard = setTimeout(() => {
  console.error(`FAIL overall timeout (${overallMs} ms)`);
  killAll();
  process.exit(1);
}, overallMs);
hard.unref();

function ok(msg) {
  console.log(`ok  ${msg}`);
}

class Fail extends Error {}
function check(cond, msg) {
  if (!cond) throw new Fail(msg);
}

async function cockpit(...args) {
  try {
    const p = run(bin, [...args, "--home", home], { timeout: 30000 });
    children.push(p.child);
    const { stdout } = await p;
    return stdout;
  } catch (e) {
    throw new Fail(`cockpit ${args.join(" ")}: ${e.message}\n${e.stderr || ""}`);
  }
}

function status(res) {
  try {
    return JSON.parse(text(res)).status;
  } catch {
    return undefined;
  }
}

function text(res) {
  return (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

async function call(client, name, args) {
  return client.callTool({ name, arguments: args }, undefined, { timeout: 60000 });
}

async function pendingID() {
  for (let i = 0; i < 200; i++) {
    const out = await cockpit("approvals", "list", "--json");
    const items = JSON.parse(out); // one JSON array ("[]" when empty)
    const it = items.find((x) => x.state === "pending");
    if (it) return it.id;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Fail("no pending review item appeared");
}

async function stdioSteps() {
  await cockpit("init");
  ok("cockpit init");

  const transport = new StdioClientTransport({
    command: bin,
    args: ["serve-mcp", "--home", home, "--approvals", "cli"],
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name: "sdk-ts-client", version: "1.0.0" });
  try {
    await client.connect(transport);
    if (transport.pid) children.push({ kill: (s) => process.kill(transport.pid, s) });
    ok(`stdio connect (${client.getServerVersion()?.name ?? "?"})`);

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const want of ["get_quote", "place_order", "cancel_order", "get_positions"]) {
      check(names.includes(want), `list tools: ${want} missing from ${names.join(", ")}`);
    }
    ok(`list tools (${tools.length})`);

    let res = await call(client, "get_quote", { symbol: "AAPL" });
    check(!res.isError, `get_quote: tool error: ${text(res)}`);
    check(/"symbol"\s*:\s*"AAPL"/.test(text(res)), `get_quote: no AAPL quote in ${text(res)}`);
    ok("get_quote AAPL (read)");

    res = await call(client, "place_order", { symbol: "AAPL", side: "buy", notional: "100", reason: "in mandate" });
    check(!res.isError && status(res) === "ok", `place_order 100: want status ok, got: ${text(res)}`);
    ok("place_order AAPL notional 100 (in mandate) accepted");

    const big = call(client, "place_order", { symbol: "MSFT", side: "buy", notional: "6000", reason: "oversize" });
    const id = await pendingID();
    ok(`oversize order waits for review (${id})`);
    await cockpit("approvals", "approve", id, "--reason", "ci");
    ok(`approved ${id} from a second process`);
    res = await big;
    check(!res.isError && status(res) === "ok", `place_order 6000 after approval: want status ok, got: ${text(res)}`);
    ok("place_order MSFT notional 6000 returns success after approval");

    await cockpit("halt", "--reason", "ci");
    ok("cockpit halt");
    res = await call(client, "place_order", { symbol: "IBM", side: "buy", notional: "100", reason: "after halt" });
    check(res.isError, `place_order after halt: not an error: ${text(res)}`);
    check(text(res).startsWith("halted"), `place_order after halt: error text does not start with "halted": ${text(res)}`);
    ok(`place_order after halt refused: ${text(res).split("\n")[0].slice(0, 60)}`);
  } catch (e) {
    if (stderr) e.message += `\nserve-mcp stderr:\n${stderr}`;
    throw e;
  } finally {
    await client.close().catch(() => {});
  }
}

function startHTTP() {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ["serve-mcp", "--home", home, "--http", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"] });
    children.push(child);
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
      const m = /streamable HTTP on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve({ child, url: m[1] });
    });
    child.on("exit", (code) => reject(new Fail(`serve-mcp --http exited ${code} before listening:\n${stderr}`)));
    child.on("error", reject);
  });
}

async function httpSteps() {
  // The stdio server halted the session; the halt is sticky, but listing tools still works.
  const { child, url } = await startHTTP();
  ok(`serve-mcp --http listening on ${url}`);
  try {
    const init = {
      jsonrpc: "2.0", id: 1, method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    };
    const bare = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(init),
    });
    check(bare.status === 401, `request without token: status ${bare.status}, want 401`);
    ok("request without token: 401");

    const token = (await readFile(`${home}/serve-mcp.token`, "utf8")).trim();
    check(token !== "", "empty token file");
    const wrong = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: "Bearer x" + token },
      body: JSON.stringify(init),
    });
    check(wrong.status === 401, `request with a wrong token: status ${wrong.status}, want 401`);
    ok("request with a wrong token: 401");

    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: "sdk-ts-http-client", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      check(tools.some((t) => t.name === "place_order"), "HTTP list tools: place_order missing");
      ok(`HTTP list tools with bearer token (${tools.length})`);
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close().catch(() => {});
    }
  } finally {
    child.kill("SIGINT");
    await new Promise((r) => (child.exitCode !== null ? r() : child.once("exit", r)));
  }
}

try {
  await stdioSteps();
  await httpSteps();
  clearTimeout(hard);
  ok("all steps passed");
  process.exit(0);
} catch (e) {
  console.error(`FAIL ${e instanceof Fail ? e.message : e.stack || e}`);
  killAll();
  process.exit(1);
}
