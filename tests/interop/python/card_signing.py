"""Signed agent cards (A2A 1.0 §8.4) with the real Python a2a-sdk 1.3.0 (its `signing` extra,
PyJWT), for tests/interop_card_signing.rs.

Usage:
  card_signing.py verify BASE_URL JWKS_URL [KID...]
      Fetches the card at BASE_URL with the SDK's A2ACardResolver and checks it with the SDK's
      create_signature_verifier, the keys taken from the JWK Set at JWKS_URL (only those
      named KID when given). Prints {"verified": true}, or {"verified": false, "error": ...}
      when the SDK refuses the card.
  card_signing.py sign ALG KEY_PEM_FILE KID CARD_JSON
      Signs the 1.0 card CARD_JSON with the SDK's create_agent_card_signer and prints the
      signed card as the SDK writes it (MessageToDict).
Exits 1 with `FAIL: why` on stderr for anything else.
"""

import asyncio
import json
import sys
import urllib.request

import httpx
from google.protobuf.json_format import MessageToDict, ParseDict
from jwt import PyJWK
from jwt.exceptions import PyJWKError

from a2a.client import A2ACardResolver
from a2a.types import AgentCard
from a2a.utils.signing import (
    SignatureVerificationError,
    create_agent_card_signer,
    create_signature_verifier,
)

ALGORITHMS = ["ES256", "RS256", "EdDSA"]


def fail(why):
    print(f"FAIL: {why}", file=sys.stderr)
    sys.exit(1)


def key_provider(jwks_url, kids):
    with urllib.request.urlopen(jwks_url, timeout=30) as answer:
        keys = json.load(answer)["keys"]
    by_kid = {key["kid"]: key for key in keys if not kids or key["kid"] in kids}

    def provide(kid, _jku):
        # The jku of a card is never followed: only the keys given count.
        if kid not in by_kid:
            raise PyJWKError(f"no trusted key {kid!r}")
        return PyJWK(by_kid[kid])

    return provide


async def verify(base_url, jwks_url, kids):
    verifier = create_signature_verifier(key_provider(jwks_url, kids), ALGORITHMS)
    async with httpx.AsyncClient(timeout=30) as client:
        resolver = A2ACardResolver(client, base_url)
        try:
            card = await resolver.get_agent_card(signature_verifier=verifier)
        except SignatureVerificationError as error:
            return {"verified": False, "error": f"{type(error).__name__}: {error}"}
    return {"verified": True, "name": card.name}


def sign(alg, key_file, kid, card_json):
    card = ParseDict(json.loads(card_json), AgentCard())
    with open(key_file, encoding="utf-8") as pem:
        key = pem.read()
    signer = create_agent_card_signer(key, {"alg": alg, "kid": kid, "typ": "JOSE"})
    return MessageToDict(signer(card))


def main(args):
    if len(args) >= 3 and args[0] == "verify":
        print(json.dumps(asyncio.run(verify(args[1], args[2], set(args[3:])))))
    elif len(args) == 5 and args[0] == "sign":
        print(json.dumps(sign(*args[1:]), ensure_ascii=False))
    else:
        fail(f"usage: see the docstring; got {args}")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except SystemExit:
        raise
    except Exception as error:  # noqa: BLE001 - any failure is the test's to report
        fail(f"{type(error).__name__}: {error}")
