// What a cold start reaches over https on Lambda, served locally over https too: DynamoDB Local
// behind a TLS front (the SDK's https modules, a handshake, encryption), and a token issuer (its
// discovery document and keys, which the authorizer fetches at its first request). The
// certificate is made at run time by openssl for localhost; a child trusts it through
// NODE_EXTRA_CA_CERTS, which Node reads when it starts.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createTlsServer } from "node:tls";
import { SignJWT, exportJWK, generateKeyPair } from "jose";

/** Listens on a free port of 127.0.0.1; resolves to the port. */
const listen = (/** @type {import("node:net").Server} */ server) =>
  new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(/** @type {import("node:net").AddressInfo} */ (server.address()).port),
    ),
  );

/**
 * Starts the https front of `dynamoEndpoint` (DynamoDB Local's http URL) and the issuer.
 * `writeToken()` signs a token the issuer's keys verify, for `audience`.
 */
export async function startTlsServices(/** @type {string} */ dynamoEndpoint, audience = "blog") {
  const dir = mkdtempSync(join(tmpdir(), "bench-tls-"));
  const [keyFile, certFile] = [join(dir, "key.pem"), join(dir, "cert.pem")];
  const subject = ["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"];
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-keyout", keyFile].concat([
      "-out",
      certFile,
      ...subject,
    ]),
    { stdio: "ignore" },
  );
  const tls = { key: readFileSync(keyFile), cert: readFileSync(certFile) };

  const target = new URL(dynamoEndpoint);
  const front = createTlsServer(tls, (socket) => {
    const upstream = connect(Number(target.port), target.hostname);
    socket.pipe(upstream).pipe(socket);
    const end = () => (socket.destroy(), upstream.destroy());
    socket.once("error", end).once("close", end);
    upstream.once("error", end).once("close", end);
  });

  const keys = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: "bench", alg: "RS256", use: "sig" };
  let issuerUrl = "";
  const documents = () => ({
    "/.well-known/openid-configuration": { issuer: issuerUrl, jwks_uri: `${issuerUrl}/jwks` },
    "/jwks": { keys: [jwk] },
  });
  const issuer = createHttpsServer(tls, (request, response) => {
    const body = /** @type {Record<string, unknown>} */ (documents())[request.url ?? ""];
    response.writeHead(body ? 200 : 404, { "content-type": "application/json" });
    response.end(JSON.stringify(body ?? {}));
  });

  const frontPort = await listen(front);
  issuerUrl = `https://localhost:${await listen(issuer)}`;
  return {
    endpoint: `https://localhost:${frontPort}`,
    issuerUrl,
    caFile: certFile,
    writeToken: () =>
      new SignJWT({ scope: "posts/write" })
        .setProtectedHeader({ alg: "RS256", kid: "bench" })
        .setIssuer(issuerUrl)
        .setAudience(audience)
        .setSubject("bench")
        .setExpirationTime("1h")
        .sign(keys.privateKey),
    stop: async () => {
      front.close();
      issuer.closeAllConnections();
      issuer.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
