//! Standard base64 (RFC 4648 §4, padded), for the bytes of file parts; and its URL-safe
//! unpadded form (§5), the alphabet of JWS and JWK members.
//!
//! File parts carry their bytes as base64 text on every wire version; the model keeps that
//! text as sent ([`FileBody::Bytes`](super::FileBody::Bytes)). These two functions let an
//! agent build such a part from bytes and read the bytes of one it received, without a
//! dependency for forty lines.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` as padded standard base64.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> shift) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Each byte's value as a base64 digit; 64 for a byte that is not one.
const VALUES: [u8; 256] = {
    let mut values = [64u8; 256];
    let mut i = 0;
    while i < 64 {
        values[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    values
};

/// The bytes of standard base64 `text` (padding optional, ASCII whitespace ignored);
/// `None` when it is not base64.
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let digits = digits
        .strip_suffix(b"==")
        .or_else(|| digits.strip_suffix(b"="))
        .unwrap_or(&digits);
    if digits.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() / 4 * 3 + 2);
    for chunk in digits.chunks(4) {
        let mut n: u32 = 0;
        for &digit in chunk {
            let value = VALUES[usize::from(digit)];
            if value == 64 {
                return None;
            }
            n = (n << 6) | u32::from(value);
        }
        n <<= 6 * (4 - chunk.len() as u32);
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// `bytes` as unpadded base64url (RFC 4648 §5), as JWS and JWK write bytes.
#[cfg(feature = "card-signing")]
pub(crate) fn encode_url(bytes: &[u8]) -> String {
    encode(bytes)
        .trim_end_matches('=')
        .chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect()
}

/// The bytes of base64url `text` (padding optional); `None` when it is not base64url
/// (standard base64's `+` and `/` included).
#[cfg(feature = "card-signing")]
pub(crate) fn decode_url(text: &str) -> Option<Vec<u8>> {
    if text
        .bytes()
        .any(|b| matches!(b, b'+' | b'/') || b.is_ascii_whitespace())
    {
        return None;
    }
    let standard: String = text
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    decode(&standard)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_encode_as_rfc_4648_says() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), coded);
            assert_eq!(decode(coded).as_deref(), Some(plain.as_bytes()));
        }
    }

    #[test]
    fn text_that_is_not_base64_decodes_to_none() {
        assert_eq!(decode("Zm9v!"), None);
        assert_eq!(decode("Z"), None);
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_round_trip(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            proptest::prop_assert_eq!(decode(&encode(&bytes)), Some(bytes));
        }

        #[cfg(feature = "card-signing")]
        #[test]
        fn any_bytes_round_trip_through_base64url(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)
        ) {
            let text = encode_url(&bytes);
            proptest::prop_assert!(!text.contains(['=', '+', '/']));
            proptest::prop_assert_eq!(decode_url(&text), Some(bytes));
        }

        #[test]
        fn any_text_decodes_without_panicking(text in ".{0,40}") {
            let _ = decode(&text);
        }
    }
}
