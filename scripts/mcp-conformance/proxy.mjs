// A loopback proxy that adds serve-mcp's bearer token to every request, so that the official
// MCP conformance suite (which cannot send one) can test `cockpit serve-mcp --http` without
// the server's auth being weakened. Everything else passes through untouched: the method, the
// path, the Host and Origin headers (the suite's DNS-rebinding scenario tests the server's own
// guard through them) and streamed bodies in both directions.
//
// Usage: node proxy.mjs TARGET_URL TOKEN_FILE   — prints "listening PORT" once it listens on
// 127.0.0.1 (an ephemeral port), and ends on SIGTERM or SIGINT.
import http from "node:http";
import { readFileSync } from "node:fs";

const [target, tokenFile] = process.argv.slice(2);
if (!target || !tokenFile) {
  console.error("usage: node proxy.mjs TARGET_URL TOKEN_FILE");
  process.exit(2);
}
const up = new URL(target);
const token = readFileSync(tokenFile, "utf8").trim();
if (token === "") {
  console.error(`proxy: ${tokenFile} is empty: run cockpit serve-mcp --http once to create it`);
  process.exit(2);
}

const server = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  const out = http.request(
    { host: up.hostname, port: up.port, method: req.method, path: req.url, headers },
    (back) => {
      res.writeHead(back.statusCode, back.statusMessage, back.headers);
      res.flushHeaders();
      back.pipe(res);
    },
  );
  out.on("error", (e) => {
    if (!res.headersSent) {
      res.writeHead(502, { "content-type": "text/plain" });
    }
    res.end(`proxy: ${e.message}\n`);
  });
  res.on("close", () => out.destroy()); // the suite hung up: so does the upstream request
  req.pipe(out);
});
server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
for (const sig of ["SIGTERM", "SIGINT"]) {
  process.on(sig, () => process.exit(0));
}
