// Signed agent cards (A2A 1.0 §8.4) with the real @a2a-js/sdk 1.3.0 (its signature helpers,
// on jose), for tests/interop_card_signing.rs.
//
// Usage:
//   node card_signing.mjs verify BASE_URL JWKS_URL [KID...]
//       Fetches the card at BASE_URL with the SDK's DefaultAgentCardResolver and checks it
//       with the SDK's verifyAgentCardSignature, the keys taken from the JWK Set at JWKS_URL
//       (only those named KID when given). Prints {"verified": true}, or
//       {"verified": false, "error": ...} when the SDK refuses the card.
//   node card_signing.mjs sign ALG KEY_PEM_FILE KID CARD_JSON
//       Signs the 1.0 card CARD_JSON with the SDK's generateAgentCardSignature and prints it.
// Exits 1 with `FAIL: why` on stderr for anything else.
import { readFile } from 'node:fs/promises';
import * as jose from 'jose';
import { generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';

// The SDK logs each refused signature with console.debug; the test reads stdout only.
console.debug = () => {};

async function verify(baseUrl, jwksUrl, kids) {
  const answer = await fetch(jwksUrl);
  const { keys } = await answer.json();
  const trusted = new Map(
    keys.filter((key) => kids.length === 0 || kids.includes(key.kid)).map((key) => [key.kid, key]),
  );
  // The jku of a card is never followed: only the keys given count.
  const verifier = verifyAgentCardSignature(async (kid) => {
    const jwk = trusted.get(kid);
    if (!jwk) throw new Error(`no trusted key ${kid}`);
    return jose.importJWK(jwk, jwk.alg);
  });
  const card = await new DefaultAgentCardResolver().resolve(baseUrl);
  try {
    await verifier(card);
  } catch (error) {
    return { verified: false, error: String(error) };
  }
  return { verified: true, name: card.name };
}

async function sign(alg, keyFile, kid, cardJson) {
  const key = await jose.importPKCS8(await readFile(keyFile, 'utf8'), alg);
  const signer = generateAgentCardSignature(key, { alg, kid, typ: 'JOSE' });
  return signer(JSON.parse(cardJson));
}

async function main([mode, ...args]) {
  if (mode === 'verify' && args.length >= 2) {
    return verify(args[0], args[1], args.slice(2));
  }
  if (mode === 'sign' && args.length === 4) {
    return sign(...args);
  }
  throw new Error(`usage: see the header; got ${[mode, ...args].join(' ')}`);
}

try {
  console.log(JSON.stringify(await main(process.argv.slice(2))));
} catch (error) {
  console.error(`FAIL: ${error?.stack ?? error}`);
  process.exit(1);
}
