// Runs s3rver (an S3-compatible server from the npm registry) on 127.0.0.1 at a free port, with
// one bucket, and writes its endpoint to a file once it listens.
//
// s3rver checks that a SigV4 request names a known access key id but does not verify the
// signature itself (its authentication middleware leaves V4 signature calculation unimplemented),
// so requests pass through a check first: the signature is computed again with the AWS SDK's own
// signer (@smithy/signature-v4) over the headers the request says it signed, and a mismatch gets
// the 403 SignatureDoesNotMatch error body S3 sends, with a RequestId. Payload hashes are taken as
// sent (the body is not hashed again), and a request more than 15 minutes from the server's clock
// gets RequestTimeTooSkewed, as on S3.
//
// Usage: node s3rver-launch.js MODULES_DIR DATA_DIR BUCKET ENDPOINT_FILE
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const [modulesDir, dataDir, bucket, endpointFile] = process.argv.slice(2);
if (!endpointFile) {
  console.error('usage: node s3rver-launch.js MODULES_DIR DATA_DIR BUCKET ENDPOINT_FILE');
  process.exit(2);
}
const load = (name) => require(path.resolve(modulesDir, 'node_modules', name));
const S3rver = load('s3rver');
const { SignatureV4 } = load('@smithy/signature-v4');
const { Hash } = load('@smithy/hash-node');

// s3rver's built-in account.
const KEYS = { S3RVER: 'S3RVER' };
const MAX_SKEW_MS = 15 * 60 * 1000;

function xmlEscape(s) {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sendError(res, status, code, message) {
  const requestId = crypto.randomBytes(8).toString('hex').toUpperCase();
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message>` +
    `<RequestId>${requestId}</RequestId></Error>`;
  res.writeHead(status, {
    'Content-Type': 'application/xml',
    'Content-Length': Buffer.byteLength(body),
    'x-amz-request-id': requestId,
  });
  res.end(body);
}

// S3 signs the key as it understands it: each path segment decoded, then encoded per RFC 3986.
function canonicalPath(rawPath) {
  return rawPath
    .split('/')
    .map((seg) =>
      encodeURIComponent(decodeURIComponent(seg)).replace(
        /[!'()*]/g,
        (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase(),
      ),
    )
    .join('/');
}

function parseQuery(raw) {
  const query = {};
  for (const item of raw.split('&')) {
    if (!item) continue;
    const eq = item.indexOf('=');
    const name = decodeURIComponent(eq < 0 ? item : item.slice(0, eq));
    const value = eq < 0 ? '' : decodeURIComponent(item.slice(eq + 1));
    if (name in query) query[name] = [].concat(query[name], value);
    else query[name] = value;
  }
  return query;
}

function parseAmzDate(s) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s || '');
  return m ? new Date(Date.UTC(m[1], m[2] - 1, m[3], m[4], m[5], m[6])) : null;
}

// Returns null when the request may go on to s3rver, else [status, code, message].
async function checkSignature(req) {
  const auth = req.headers.authorization;
  if (!auth) return [403, 'AccessDenied', 'Anonymous requests are not allowed'];
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m) return [400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed'];
  const [, accessKeyId, , region, service, signedList, signature] = m;
  // Unknown key ids are left to s3rver, which answers InvalidAccessKeyId itself.
  if (!(accessKeyId in KEYS)) return null;
  const date = parseAmzDate(req.headers['x-amz-date']);
  if (!date) return [403, 'AccessDenied', 'x-amz-date is missing or malformed'];
  if (Math.abs(Date.now() - date.getTime()) > MAX_SKEW_MS)
    return [403, 'RequestTimeTooSkewed', 'The difference between the request time and the ' +
      'current time is too large.'];
  const signed = signedList.split(';');
  if (!signed.includes('host') || !signed.includes('x-amz-content-sha256'))
    return [403, 'AccessDenied', 'host and x-amz-content-sha256 must be signed'];
  const headers = {};
  for (const name of signed) {
    if (name === 'x-amz-date' || name === 'x-amz-security-token') continue;
    if (req.headers[name] === undefined)
      return [403, 'AccessDenied', `signed header ${name} is not in the request`];
    headers[name] = String(req.headers[name]);
  }
  const q = req.url.indexOf('?');
  const rawPath = q < 0 ? req.url : req.url.slice(0, q);
  const signer = new SignatureV4({
    credentials: {
      accessKeyId,
      secretAccessKey: KEYS[accessKeyId],
      sessionToken: signed.includes('x-amz-security-token')
        ? req.headers['x-amz-security-token']
        : undefined,
    },
    region,
    service,
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: false,
    applyChecksum: false,
  });
  const expected = await signer.sign(
    {
      method: req.method,
      protocol: 'http:',
      hostname: req.headers.host,
      path: canonicalPath(rawPath),
      query: parseQuery(q < 0 ? '' : req.url.slice(q + 1)),
      headers,
    },
    { signingDate: date },
  );
  const want = /SignedHeaders=([^,]+), Signature=([0-9a-f]+)/.exec(expected.headers.authorization);
  if (!want || want[1] !== signedList || want[2] !== signature)
    return [403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match ' +
      'the signature you provided. Check your key and signing method.'];
  return null;
}

async function main() {
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dataDir,
    configureBuckets: [{ name: bucket }],
  });
  const address = await server.run();
  const s3rverHandler = server.httpServer.listeners('request')[0];
  server.httpServer.removeAllListeners('request');
  server.httpServer.on('request', (req, res) => {
    checkSignature(req).then(
      (refusal) => (refusal ? sendError(res, ...refusal) : s3rverHandler(req, res)),
      (err) => sendError(res, 500, 'InternalError', err.message),
    );
  });
  const stop = () => {
    // Idle keep-alive connections would hold close() open; nothing is in flight at a stop.
    server.httpServer.closeAllConnections();
    setTimeout(() => process.exit(0), 2000).unref();
    server.close().then(() => process.exit(0), () => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // Written last and renamed, so a reader never sees half an endpoint.
  fs.writeFileSync(endpointFile + '.tmp', `http://127.0.0.1:${address.port}\n`);
  fs.renameSync(endpointFile + '.tmp', endpointFile);
}

main().catch((err) => {
  console.error(`s3rver-launch: ${err.stack || err}`);
  process.exit(1);
});
