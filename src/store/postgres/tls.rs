//! PostgreSQL over TLS, configured the way libpq is: `sslmode` and `sslrootcert`.
//!
//! Managed PostgreSQL services refuse plain connections, and the checks their users expect
//! are libpq's. tokio-postgres knows only `sslmode=disable|prefer|require`, so the two
//! parameters are taken out of the connection string here (URL or `key=value` form) and
//! become a rustls configuration:
//!
//! | `sslmode`            | TLS                  | the server's certificate                  |
//! |----------------------|----------------------|-------------------------------------------|
//! | `disable`            | never                | -                                         |
//! | `prefer` (default)   | if the server has it | not checked, unless `sslrootcert` is set  |
//! | `require`            | always               | not checked, unless `sslrootcert` is set  |
//! | `verify-ca`          | always               | signed by a CA of `sslrootcert`           |
//! | `verify-full`        | always               | that, and issued for the host connected to |
//!
//! With `sslrootcert` set, `prefer` and `require` check the chain as `verify-ca` does (as
//! libpq does when a root certificate file exists). `sslrootcert` is a PEM file of one or
//! more CA certificates, or `system` for the Mozilla roots compiled in (webpki-roots);
//! `system` means `verify-full` unless `sslmode` says otherwise, and a weaker mode than
//! `verify-full` with it is refused (libpq 16's rule). `verify-ca` and `verify-full` without
//! `sslrootcert` are refused rather than guessed.

use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres::Config;
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::store::StoreError;

/// Where a store connects and how: the configuration tokio-postgres reads and the TLS
/// connector made from `sslmode` and `sslrootcert`.
#[derive(Clone)]
pub(super) struct Target {
    pub(super) config: Config,
    pub(super) tls: MakeRustlsConnect,
}

/// What `sslmode` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl Mode {
    fn parse(name: &str) -> Result<Self, StoreError> {
        Ok(match name {
            "disable" => Mode::Disable,
            "allow" | "prefer" => Mode::Prefer,
            "require" => Mode::Require,
            "verify-ca" => Mode::VerifyCa,
            "verify-full" => Mode::VerifyFull,
            other => {
                return Err(refused(format!(
                    "sslmode={other} is not one of disable, prefer, require, verify-ca, \
                     verify-full"
                )));
            }
        })
    }

    /// The mode as tokio-postgres takes it: the verify modes are `require` there, the
    /// checks being the connector's.
    fn for_driver(self) -> &'static str {
        match self {
            Mode::Disable => "disable",
            Mode::Prefer => "prefer",
            Mode::Require | Mode::VerifyCa | Mode::VerifyFull => "require",
        }
    }
}

fn refused(why: String) -> StoreError {
    StoreError::Config {
        engine: super::ENGINE,
        detail: why,
    }
}

impl Target {
    /// Reads `url` (`postgres://...?sslmode=verify-full&sslrootcert=/etc/ca.pem` or
    /// `host=... sslmode=... sslrootcert=...`).
    ///
    /// # Errors
    ///
    /// [`StoreError::Config`] when the string does not parse, names an unknown `sslmode`, a
    /// CA file that cannot be read, or a verify mode without `sslrootcert`.
    pub(super) fn parse(url: &str) -> Result<Self, StoreError> {
        let (rest, tls) = Params::take(url)?;
        let named_mode = tls.mode.as_deref().map(Mode::parse).transpose()?;
        let system = tls.root_cert.as_deref() == Some("system");
        let mode = match (named_mode, system) {
            (None, true) => Mode::VerifyFull,
            (Some(mode), true) if mode != Mode::VerifyFull => {
                return Err(refused(
                    "sslrootcert=system needs sslmode=verify-full (or no sslmode)".into(),
                ));
            }
            (mode, _) => mode.unwrap_or(Mode::Prefer),
        };
        let mut driver = rest;
        driver.push(("sslmode".into(), mode.for_driver().into()));
        let config: Config = Params::join(url, &driver)
            .parse()
            .map_err(|error| refused(format!("the connection string does not parse: {error}")))?;
        let roots = match tls.root_cert.as_deref() {
            None => None,
            Some("system") => Some(RootCertStore::from_iter(
                webpki_roots::TLS_SERVER_ROOTS.iter().cloned(),
            )),
            Some(path) => Some(read_roots(path)?),
        };
        Ok(Target {
            config,
            tls: MakeRustlsConnect::new(client_config(mode, roots)?),
        })
    }
}

/// The CA certificates in the PEM file at `path`.
fn read_roots(path: &str) -> Result<RootCertStore, StoreError> {
    let unreadable = |why: &dyn std::fmt::Display| {
        refused(format!(
            "cannot read the CA certificates of sslrootcert={path}: {why}"
        ))
    };
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(path).map_err(|e| unreadable(&e))? {
        let cert = cert.map_err(|e| unreadable(&e))?;
        roots.add(cert).map_err(|e| unreadable(&e))?;
    }
    if roots.is_empty() {
        return Err(unreadable(&"the file holds no certificate"));
    }
    Ok(roots)
}

/// The rustls configuration `mode` and `roots` ask for.
fn client_config(mode: Mode, roots: Option<RootCertStore>) -> Result<ClientConfig, StoreError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| refused(format!("TLS: {e}")))?;
    let verifier: Arc<dyn ServerCertVerifier> = match (mode, roots) {
        (Mode::VerifyCa | Mode::VerifyFull, None) => {
            return Err(refused(format!(
                "sslmode={} needs sslrootcert=FILE (the CA certificates, PEM) or \
                 sslrootcert=system",
                if mode == Mode::VerifyCa {
                    "verify-ca"
                } else {
                    "verify-full"
                }
            )));
        }
        (Mode::Disable | Mode::Prefer | Mode::Require, None) => Arc::new(Unchecked(provider)),
        (mode, Some(roots)) => {
            let chain = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|e| refused(format!("TLS: {e}")))?;
            if mode == Mode::VerifyFull {
                chain
            } else {
                Arc::new(AnyName(chain))
            }
        }
    };
    Ok(builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth())
}

/// `sslmode` and `sslrootcert` as found in a connection string, and the other parameters.
#[derive(Default)]
struct Params {
    mode: Option<String>,
    root_cert: Option<String>,
}

impl Params {
    /// Takes the TLS parameters out of `url`; the others, in order.
    fn take(url: &str) -> Result<(Vec<(String, String)>, Params), StoreError> {
        let pairs = if is_url(url) {
            url.split_once('?').map_or(Ok(Vec::new()), |(_, query)| {
                query
                    .split('&')
                    .filter(|pair| !pair.is_empty())
                    .map(|pair| {
                        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                        Ok((percent_decoded(key)?, percent_decoded(value)?))
                    })
                    .collect()
            })?
        } else {
            key_values(url)?
        };
        let mut params = Params::default();
        let mut rest = Vec::new();
        for (key, value) in pairs {
            match key.as_str() {
                "sslmode" => params.mode = Some(value),
                "sslrootcert" => params.root_cert = Some(value),
                _ => rest.push((key, value)),
            }
        }
        Ok((rest, params))
    }

    /// `url` with its parameters replaced by `pairs`, in the same form.
    fn join(url: &str, pairs: &[(String, String)]) -> String {
        if is_url(url) {
            let base = url.split_once('?').map_or(url, |(base, _)| base);
            let query: Vec<String> = pairs
                .iter()
                .map(|(key, value)| format!("{}={}", percent_encoded(key), percent_encoded(value)))
                .collect();
            format!("{base}?{}", query.join("&"))
        } else {
            let pairs: Vec<String> = pairs
                .iter()
                .map(|(key, value)| {
                    let value = value.replace('\\', "\\\\").replace('\'', "\\'");
                    format!("{key}='{value}'")
                })
                .collect();
            pairs.join(" ")
        }
    }
}

fn is_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// The `key=value` pairs of a libpq keyword string (values may be single-quoted, with
/// backslash escapes; spaces may surround `=`).
fn key_values(text: &str) -> Result<Vec<(String, String)>, StoreError> {
    let malformed = || refused("the connection string does not parse".into());
    let mut chars = text.chars().peekable();
    let mut pairs = Vec::new();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return Ok(pairs);
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next() != Some('=') || key.is_empty() {
            return Err(malformed());
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if_eq(&'\'').is_some() {
            loop {
                match chars.next().ok_or_else(malformed)? {
                    '\'' => break,
                    '\\' => value.push(chars.next().ok_or_else(malformed)?),
                    c => value.push(c),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                if c == '\\' {
                    value.push(chars.next().ok_or_else(malformed)?);
                } else {
                    value.push(c);
                }
            }
        }
        pairs.push((key, value));
    }
}

fn percent_decoded(text: &str) -> Result<String, StoreError> {
    let malformed = || {
        refused(format!(
            "bad percent-encoding in the connection URL: {text}"
        ))
    };
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).ok_or_else(malformed)?;
            let hex = std::str::from_utf8(hex).map_err(|_| malformed())?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| malformed())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| malformed())
}

fn percent_encoded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/:".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// What to tell the operator about a TLS failure among the causes of a connection error:
/// rustls names the problem (`UnknownIssuer`), not what to check.
pub(super) fn hint(cause: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    let tls = cause.downcast_ref::<rustls::Error>().or_else(|| {
        cause
            .downcast_ref::<std::io::Error>()?
            .get_ref()?
            .downcast_ref::<rustls::Error>()
    })?;
    match tls {
        rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer) => {
            Some("the server's certificate is not signed by a CA of sslrootcert")
        }
        rustls::Error::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        ) => Some(
            "the server's certificate does not name the host connected to; \
             sslmode=verify-ca would not compare it",
        ),
        _ => None,
    }
}

/// `sslmode=prefer` or `require` without a CA: the connection is encrypted, the
/// certificate taken as it comes (what libpq does). Handshake signatures are still checked.
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `sslmode=verify-ca`: the chain must lead to a CA of `sslrootcert`; the name the
/// certificate was issued for is not compared with the host.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        // webpki checks the chain first: a name error means the chain was good.
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ssl_mode(url: &str) -> tokio_postgres::config::SslMode {
        Target::parse(url).unwrap().config.get_ssl_mode()
    }

    #[test]
    fn the_tls_parameters_are_taken_out_and_the_rest_kept() {
        use tokio_postgres::config::SslMode;
        let url = "postgres://u:p%40ss@db:5433/tasks?application_name=a%20b&sslmode=require";
        let target = Target::parse(url).unwrap();
        assert_eq!(target.config.get_ssl_mode(), SslMode::Require);
        assert_eq!(target.config.get_password(), Some(&b"p@ss"[..]));
        assert_eq!(target.config.get_application_name(), Some("a b"));
        assert_eq!(target.config.get_ports(), [5433]);
        assert_eq!(ssl_mode("postgres://db/tasks"), SslMode::Prefer);
        assert_eq!(
            ssl_mode("host=db user='a b' sslmode = disable"),
            SslMode::Disable
        );
        let keywords = Target::parse("host=db user='o\\'k' sslmode=prefer").unwrap();
        assert_eq!(keywords.config.get_user(), Some("o'k"));
        assert_eq!(
            ssl_mode("postgres://db?sslrootcert=system"),
            SslMode::Require
        );
    }

    #[test]
    fn what_cannot_be_checked_is_refused_with_the_reason() {
        let cases = [
            ("postgres://db?sslmode=verify-full", "needs sslrootcert"),
            ("host=db sslmode=verify-ca", "needs sslrootcert"),
            (
                "postgres://db?sslmode=strict",
                "sslmode=strict is not one of",
            ),
            (
                "postgres://db?sslmode=require&sslrootcert=system",
                "needs sslmode=verify-full",
            ),
            (
                "postgres://db?sslmode=verify-ca&sslrootcert=/nonexistent/ca.pem",
                "/nonexistent/ca.pem",
            ),
            ("postgres://db?sslmode=%zz", "percent-encoding"),
            ("host=db user='open", "does not parse"),
        ];
        for (url, why) in cases {
            let error = Target::parse(url).err().map(|e| e.to_string());
            assert!(
                error.as_deref().is_some_and(|e| e.contains(why)),
                "{url}: {error:?}"
            );
        }
    }
}
