//! The `serve` options that say who the callers are: one token per caller from a file, or
//! JWT bearer tokens checked against a JWKS file, and whether callers act in tenants. Each
//! caller sees only its own tasks.

use std::path::PathBuf;
use std::time::Duration;

use a2ui_agent::server::{JwtAuth, ServerBuilder, TokenTable};

/// How `a2ui-agent serve` authenticates several callers.
#[derive(Debug, clap::Args)]
pub struct Callers {
    /// A file of callers, one `PRINCIPAL TOKEN [tenant=TENANT] [scopes=A,B]` line each (`#`
    /// starts a comment); each sends its token as `Authorization: Bearer <token>` and sees
    /// only its own tasks, in its tenant; the agent reads its scopes.
    #[arg(long, value_name = "FILE")]
    auth_tokens: Option<PathBuf>,
    /// Turn tenants on (A2A 1.0 multi-tenancy): the API is also served under `/{tenant}/`,
    /// and a request may name a tenant in its `tenant` member. A caller acts only in its own
    /// tenant (its token-file `tenant=`, or the --jwt-tenant-claim); any other is answered
    /// as a missing task. The card lists the 1.0 interfaces again for each tenant of LISTED
    /// (`--tenants acme,globex`); with none, tenant names stay out of the public card.
    #[arg(long, value_name = "LISTED", num_args = 0..=1, value_delimiter = ',',
          default_missing_value = "")]
    tenants: Option<Vec<String>>,
    /// Accept JWT bearer tokens signed by a key of this JWKS file (RSA, EC P-256/P-384 or
    /// Ed25519 public keys).
    #[arg(long, value_name = "FILE", conflicts_with = "jwt_jwks_url")]
    jwt_jwks: Option<PathBuf>,
    /// As --jwt-jwks, the JWKS fetched from this URL when the server starts (https, or http
    /// to a loopback address); restart to take rotated keys.
    #[arg(long, value_name = "URL")]
    jwt_jwks_url: Option<String>,
    /// The `iss` a JWT must have.
    #[arg(long, value_name = "ISSUER")]
    jwt_issuer: Option<String>,
    /// The audience a JWT's `aud` must hold.
    #[arg(long, value_name = "AUDIENCE")]
    jwt_audience: Option<String>,
    /// The JWT claim naming the caller.
    #[arg(long, value_name = "CLAIM", default_value = "sub")]
    jwt_principal_claim: String,
    /// The JWT claim naming the caller's tenant (default: no tenants).
    #[arg(long, value_name = "CLAIM")]
    jwt_tenant_claim: Option<String>,
    /// Seconds of clock skew allowed on a JWT's `exp` and `nbf`.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    jwt_leeway: u64,
}

impl Callers {
    /// `builder` with these options.
    ///
    /// # Errors
    ///
    /// When the token file or the JWKS cannot be read or is not valid (the message never
    /// holds a token).
    pub async fn apply(self, mut builder: ServerBuilder) -> Result<ServerBuilder, String> {
        if let Some(path) = self.auth_tokens {
            let table = TokenTable::from_file(&path).map_err(|e| format!("--auth-tokens: {e}"))?;
            tracing::info!(callers = table.len(), "callers authenticated by token");
            builder = builder.auth_tokens(table);
        }
        let jwks = match (self.jwt_jwks, self.jwt_jwks_url) {
            (Some(path), _) => {
                Some(JwtAuth::from_jwks_file(&path).map_err(|e| format!("--jwt-jwks: {e}"))?)
            }
            (None, Some(url)) => Some(fetch_jwks(&url).await?),
            (None, None) => None,
        };
        if let Some(jwt) = jwks {
            let mut jwt = jwt
                .principal_claim(self.jwt_principal_claim)
                .leeway(Duration::from_secs(self.jwt_leeway));
            if let Some(issuer) = self.jwt_issuer {
                jwt = jwt.issuer(issuer);
            }
            match self.jwt_audience {
                Some(audience) => jwt = jwt.audience(audience),
                None => tracing::warn!(
                    "--jwt-audience is not set: a JWT issued for another service is accepted"
                ),
            }
            if let Some(claim) = self.jwt_tenant_claim {
                jwt = jwt.tenant_claim(claim);
            }
            builder = builder.jwt(jwt);
        }
        if let Some(listed) = self.tenants {
            let listed: Vec<String> = listed
                .into_iter()
                .map(|tenant| tenant.trim().to_owned())
                .filter(|tenant| !tenant.is_empty())
                .collect();
            tracing::info!(listed = listed.len(), "tenants on");
            builder = builder.tenants(listed);
        }
        Ok(builder)
    }
}

/// The JWKS at `url`: https, or http to a loopback address (a key set fetched in the clear
/// from elsewhere could be anyone's).
async fn fetch_jwks(url: &str) -> Result<JwtAuth, String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("--jwt-jwks-url: {e}"))?;
    let loopback = parsed
        .host_str()
        .map(|host| host.trim_start_matches('[').trim_end_matches(']'))
        .is_some_and(|host| {
            host == "localhost"
                || host
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        });
    if parsed.scheme() != "https" && !(parsed.scheme() == "http" && loopback) {
        return Err("--jwt-jwks-url: use https (http only to a loopback address)".to_owned());
    }
    const MAX: usize = 1 << 20;
    let fetch = async {
        let response = reqwest::Client::new()
            .get(parsed)
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| e.to_string())?;
        let body = crate::bounded::read_at_most(response, MAX).await?;
        String::from_utf8(body).map_err(|_| "the key set is not UTF-8".to_owned())
    };
    let text = tokio::time::timeout(Duration::from_secs(10), fetch)
        .await
        .map_err(|_| "--jwt-jwks-url: no answer within 10 s".to_owned())?
        .map_err(|e| format!("--jwt-jwks-url: {e}"))?;
    let jwt = JwtAuth::from_jwks(&text).map_err(|e| format!("--jwt-jwks-url: {e}"))?;
    tracing::info!(url, "JWT keys fetched");
    Ok(jwt)
}
