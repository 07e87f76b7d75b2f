// Runs s3rver (an S3-compatible server from the npm registry) on 127.0.0.1 with one bucket, behind
// a front on another free port of 127.0.0.1, and writes the front's endpoint to a file once both
// listen.
//
// s3rver checks that a SigV4 request names a known access key id but does not verify the
// signature itself (its authentication middleware leaves V4 signature calculation unimplemented),
// nor the payload hash. The front does both before it forwards a request: the signature is
// computed again with the AWS SDK's own signer (@smithy/signature-v4) over the headers the request
// says it signed, and the body's SHA-256 is compared with x-amz-content-sha256 (UNSIGNED-PAYLOAD is
// let through). A mismatch gets the error S3 sends (403 SignatureDoesNotMatch, 400
// XAmzContentSHA256Mismatch) with a RequestId, and a request more than 15 minutes from the
// server's clock gets RequestTimeTooSkewed, as on S3. Bodies are held in memory to be hashed,
// which suits the test objects (a few MiB).
//
// s3rver's own writes are also replaced, so that an object appears whole or not at all (see
// writeHashed below).
//
// Usage: node s3rver-launch.js MODULES_DIR DATA_DIR BUCKET ENDPOINT_FILE
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const path = require('path');
const { Readable, Transform } = require('stream');
const { pipeline } = require('stream/promises');

const [modulesDir, dataDir, bucket, endpointFile] = process.argv.slice(2);
if (!endpointFile) {
  console.error('usage: node s3rver-launch.js MODULES_DIR DATA_DIR BUCKET ENDPOINT_FILE');
  process.exit(2);
}
const load = (name) => require(path.resolve(modulesDir, 'node_modules', name));
const S3rver = load('s3rver');
const FilesystemStore = load('s3rver/lib/stores/filesystem');
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
async function checkRequest(req, body) {
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
  const claimed = req.headers['x-amz-content-sha256'];
  if (claimed === 'UNSIGNED-PAYLOAD') return null;
  if (!/^[0-9a-f]{64}$/.test(claimed || ''))
    return [400, 'InvalidArgument', 'x-amz-content-sha256 must be a SHA-256 or UNSIGNED-PAYLOAD'];
  if (crypto.createHash('sha256').update(body).digest('hex') !== claimed)
    return [400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does " +
      'not match what was computed.'];
  return null;
}

// s3rver 3.7.1 writes an object in place and answers the PUT when its hashing transform has seen
// the body, not when the file is written. Meanwhile any listing of the bucket, and s3rver answers
// a HEAD on the bucket (which the library sends when it opens an object for writing) with one,
// finds the object without its .md5 file, hashes the partial file and writes that as the md5,
// racing the PUT's own. A HEAD of the object then reads an empty or wrong ETag. Here the body goes
// to a file outside the buckets and is renamed into place after its md5 and metadata are written,
// so a listing never sees an object being written, and the answer waits for all of it.
const incomingDir = path.join(path.dirname(path.resolve(dataDir)), 'incoming');

async function writeHashed(filePath, content) {
  const md5 = crypto.createHash('md5');
  let size = 0;
  const hash = new Transform({
    transform(chunk, encoding, callback) {
      md5.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  const source = Buffer.isBuffer(content) ? Readable.from([content]) : content;
  await pipeline(source, hash, fs.createWriteStream(filePath));
  return { size, md5: md5.digest('hex') };
}

FilesystemStore.prototype.putObject = async function putObject(object) {
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  const staged = path.join(incomingDir, crypto.randomBytes(12).toString('hex'));
  await fs.promises.mkdir(incomingDir, { recursive: true });
  try {
    const written = await writeHashed(staged, object.content);
    await fs.promises.mkdir(path.dirname(objectPath), { recursive: true });
    await this.putMetadata(object.bucket, object.key, object.metadata, written.md5);
    await fs.promises.rename(staged, objectPath);
    return written;
  } finally {
    await fs.promises.rm(staged, { force: true });
  }
};

// A part's file is read when the upload completes: it must be whole when its PUT is answered.
FilesystemStore.prototype.putPart = async function putPart(bucket, uploadId, partNumber, content) {
  const partPath = path.join(
    this.getResourcePath(bucket, undefined, 'uploads'),
    uploadId,
    partNumber.toString(),
  );
  await fs.promises.mkdir(path.dirname(partPath), { recursive: true });
  const written = await writeHashed(partPath, content);
  await fs.promises.writeFile(`${partPath}.md5`, written.md5);
  return written;
};

// A fresh connection per request: a kept-alive one can be closed by s3rver just as it is reused,
// which would fail a test for nothing.
function forward(backendPort, req, body, res) {
  const upstream = http.request(
    { host: '127.0.0.1', port: backendPort, method: req.method, path: req.url,
      headers: req.headers, agent: false },
    (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', (err) => sendError(res, 502, 'InternalError', err.message));
  upstream.end(body);
}

async function main() {
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dataDir,
    configureBuckets: [{ name: bucket }],
  });
  const backend = await server.run();
  const front = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      checkRequest(req, body).then(
        (refusal) =>
          refusal ? sendError(res, ...refusal) : forward(backend.port, req, body, res),
        (err) => sendError(res, 500, 'InternalError', err.message),
      );
    });
  });
  await new Promise((resolve, reject) =>
    front.listen(0, '127.0.0.1', (err) => (err ? reject(err) : resolve())),
  );
  const stop = () => {
    // Idle keep-alive connections would hold close() open; nothing is in flight at a stop.
    front.closeAllConnections();
    server.httpServer.closeAllConnections();
    setTimeout(() => process.exit(0), 2000).unref();
    front.close();
    server.close().then(() => process.exit(0), () => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // Written last and renamed, so a reader never sees half an endpoint.
  fs.writeFileSync(endpointFile + '.tmp', `http://127.0.0.1:${front.address().port}\n`);
  fs.renameSync(endpointFile + '.tmp', endpointFile);
}

main().catch((err) => {
  console.error(`s3rver-launch: ${err.stack || err}`);
  process.exit(1);
});
