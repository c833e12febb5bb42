/** A raw HTTP/1.1 request over a socket, for bodies fetch cannot send (invalid bytes, a lying length). */
import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function rawRequest(
  url: string,
  req: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: Buffer | string;
    contentLength?: number;
  },
  timeoutMs = 10_000,
): Promise<RawResponse> {
  const u = new URL(url);
  const body = req.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
  const head = [
    `${req.method} ${req.path} HTTP/1.1`,
    `Host: ${u.host}`,
    "Connection: close",
    `Content-Length: ${req.contentLength ?? body.length}`,
    ...Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`raw request timed out: ${req.method} ${req.path}`));
    }, timeoutMs);
    socket.on("connect", () => {
      socket.write(head);
      socket.write(body);
      // A declared length longer than the body: stop sending; the server must still answer.
      if (req.contentLength !== undefined && req.contentLength > body.length) socket.end();
    });
    socket.on("data", (d) => chunks.push(d));
    // The server may answer and close while the body is still being written (413): keep the answer.
    socket.on("error", (e) => {
      if (chunks.length === 0) {
        clearTimeout(timer);
        reject(e);
      }
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      const [rawHead = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...headerLines] = rawHead.split("\r\n");
      const headers: Record<string, string> = {};
      for (const l of headerLines) {
        const i = l.indexOf(":");
        if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      let payload = rest.join("\r\n\r\n");
      if (headers["transfer-encoding"] === "chunked") payload = dechunk(payload);
      resolve({ status: Number(statusLine.split(" ")[1] ?? 0), headers, body: payload });
    });
  });
}

function dechunk(s: string): string {
  let out = "";
  let rest = s;
  for (;;) {
    const nl = rest.indexOf("\r\n");
    if (nl < 0) break;
    const size = parseInt(rest.slice(0, nl), 16);
    if (!size) break;
    out += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 2 + size + 2);
  }
  return out;
}
