// A minimal round-robin HTTP proxy for benchmarks: each request goes to the next upstream in turn
// (keep-alive agents, bodies streamed). Environment: PORT, UPSTREAMS (comma-separated base URLs).
import http from 'node:http';

const upstreams = (process.env.UPSTREAMS ?? '').split(',').map((url) => new URL(url));
if (upstreams.length === 0) throw new Error('UPSTREAMS is empty');
// an idle upstream connection is dropped after 2 s, before the server's keep-alive timeout (5 s by
// default) closes it: a request sent on a connection the server is closing fails (502)
const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 2000 });
let next = 0;

const server = http.createServer((request, response) => {
  const upstream = upstreams[next]!;
  next = (next + 1) % upstreams.length;
  const forward = http.request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: request.url,
      headers: request.headers,
      agent,
    },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  forward.on('error', () => {
    if (!response.headersSent) response.writeHead(502);
    response.end();
  });
  request.pipe(forward);
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
