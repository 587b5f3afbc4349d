//! Just enough PEM and DER to read the keys `openssl` writes: a PKCS#8 private key
//! (`BEGIN PRIVATE KEY`) and a SubjectPublicKeyInfo public key (`BEGIN PUBLIC KEY`), each
//! told apart by its algorithm identifier (RSA, EC on P-256, Ed25519).
//!
//! The crypto library takes the key bytes; what it does not do is say which algorithm a
//! PEM file holds, and that is what lets `serve --card-signing-key FILE` take any of the
//! three without a flag naming it.

use super::super::base64;

/// `rsaEncryption` (1.2.840.113549.1.1.1).
const RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
/// `id-ecPublicKey` (1.2.840.10045.2.1).
const EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
/// `prime256v1`, the P-256 curve (1.2.840.10045.3.1.7).
const P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
/// `id-Ed25519` (1.3.101.112).
const ED25519: &[u8] = &[0x2b, 0x65, 0x70];

const SEQUENCE: u8 = 0x30;
const INTEGER: u8 = 0x02;
const OCTET_STRING: u8 = 0x04;
const BIT_STRING: u8 = 0x03;
const OID: u8 = 0x06;

/// The key algorithms a card may be signed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyKind {
    /// RSA (signs RS256).
    Rsa,
    /// ECDSA on P-256 (signs ES256).
    P256,
    /// Ed25519 (signs EdDSA).
    Ed25519,
}

/// The label and the DER bytes of the first PEM block in `text`.
pub(crate) fn pem(text: &str) -> Result<(&str, Vec<u8>), String> {
    let start = text
        .find("-----BEGIN ")
        .ok_or("not PEM: no -----BEGIN line")?;
    let after = &text[start + "-----BEGIN ".len()..];
    let label_end = after.find("-----").ok_or("not PEM: a broken BEGIN line")?;
    let label = &after[..label_end];
    let body = &after[label_end + "-----".len()..];
    let end = format!("-----END {label}-----");
    let body_end = body
        .find(&end)
        .ok_or_else(|| format!("not PEM: no {end} line"))?;
    let der = base64::decode(&body[..body_end])
        .ok_or_else(|| format!("the {label} block is not base64"))?;
    Ok((label, der))
}

/// One DER element: its tag, its content and what follows it.
fn element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (length, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let (bytes, rest) = rest.split_at(count);
        let length = bytes.iter().fold(0usize, |n, &b| (n << 8) | usize::from(b));
        (length, rest)
    };
    if rest.len() < length {
        return None;
    }
    let (content, rest) = rest.split_at(length);
    Some((tag, content, rest))
}

/// The content of an element tagged `tag` at the start of `input`, and what follows it.
fn expect(input: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (found, content, rest) = element(input)?;
    (found == tag).then_some((content, rest))
}

/// The key kind an `AlgorithmIdentifier`'s content names.
fn algorithm(identifier: &[u8]) -> Result<KeyKind, String> {
    let (oid, params) = expect(identifier, OID).ok_or("a malformed algorithm identifier")?;
    match oid {
        RSA => Ok(KeyKind::Rsa),
        ED25519 => Ok(KeyKind::Ed25519),
        EC => match expect(params, OID) {
            Some((P256, _)) => Ok(KeyKind::P256),
            _ => Err("an EC key on a curve other than P-256 (ES256 needs P-256)".into()),
        },
        _ => Err("a key of an algorithm other than RSA, EC P-256 or Ed25519".into()),
    }
}

/// The kind of key a PKCS#8 `PrivateKeyInfo` holds (the crypto library reads the rest).
pub(crate) fn private_key_info(der: &[u8]) -> Result<KeyKind, String> {
    let malformed = || "not a PKCS#8 private key".to_owned();
    let (info, _) = expect(der, SEQUENCE).ok_or_else(malformed)?;
    let (_version, rest) = expect(info, INTEGER).ok_or_else(malformed)?;
    let (identifier, rest) = expect(rest, SEQUENCE).ok_or_else(malformed)?;
    let kind = algorithm(identifier)?;
    expect(rest, OCTET_STRING).ok_or_else(malformed)?;
    Ok(kind)
}

/// The kind of a `SubjectPublicKeyInfo` and its key bits: the uncompressed point of a P-256
/// key, the 32 bytes of an Ed25519 key, the PKCS#1 `RSAPublicKey` of an RSA key.
pub(crate) fn public_key_info(der: &[u8]) -> Result<(KeyKind, &[u8]), String> {
    let malformed = || "not a SubjectPublicKeyInfo public key".to_owned();
    let (info, _) = expect(der, SEQUENCE).ok_or_else(malformed)?;
    let (identifier, rest) = expect(info, SEQUENCE).ok_or_else(malformed)?;
    let kind = algorithm(identifier)?;
    let (bits, _) = expect(rest, BIT_STRING).ok_or_else(malformed)?;
    match bits.split_first() {
        Some((0, key)) => Ok((kind, key)),
        _ => Err(malformed()),
    }
}

/// The modulus and exponent of a PKCS#1 `RSAPublicKey`, big-endian without leading zeros.
pub(crate) fn rsa_public_key(der: &[u8]) -> Result<(Vec<u8>, Vec<u8>), String> {
    let malformed = || "not an RSA public key".to_owned();
    let (key, _) = expect(der, SEQUENCE).ok_or_else(malformed)?;
    let (n, rest) = expect(key, INTEGER).ok_or_else(malformed)?;
    let (e, _) = expect(rest, INTEGER).ok_or_else(malformed)?;
    let unsigned = |b: &[u8]| {
        let start = b.iter().position(|&x| x != 0).unwrap_or(b.len());
        b[start..].to_vec()
    };
    Ok((unsigned(n), unsigned(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pem_block_gives_its_label_and_bytes() {
        let (label, der) =
            pem("junk\n-----BEGIN PUBLIC KEY-----\nMAMCAQE=\n-----END PUBLIC KEY-----\n").unwrap();
        assert_eq!(label, "PUBLIC KEY");
        assert_eq!(der, [0x30, 0x03, 0x02, 0x01, 0x01]);
    }

    #[test]
    fn broken_pem_and_der_are_errors_not_panics() {
        for text in [
            "",
            "-----BEGIN X",
            "-----BEGIN X-----\nAAAA",
            "-----BEGIN X-----\n!!\n-----END X-----",
        ] {
            assert!(pem(text).is_err(), "{text:?}");
        }
        for der in [
            &[][..],
            &[0x30],
            &[0x30, 0x85, 1, 1, 1, 1, 1],
            &[0x30, 0x82, 0xff],
            &[0x30, 0x02, 0x02, 0x00],
        ] {
            assert!(private_key_info(der).is_err(), "{der:?}");
            assert!(public_key_info(der).is_err(), "{der:?}");
            assert!(rsa_public_key(der).is_err(), "{der:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_are_read_without_panicking(
            der in proptest::collection::vec(proptest::num::u8::ANY, 0..80)
        ) {
            let _ = private_key_info(&der);
            let _ = public_key_info(&der);
            let _ = rsa_public_key(&der);
        }
    }
}
