//! The `serve` options that say who the callers are: one token per caller from a file, or
//! JWT bearer tokens checked against a JWKS file. Each caller sees only its own tasks.

use std::path::PathBuf;
use std::time::Duration;

use a2ui_agent::server::{JwtAuth, ServerBuilder, TokenTable};

/// How `a2ui-agent serve` authenticates several callers.
#[derive(Debug, clap::Args)]
pub struct Callers {
    /// A file of callers, one `PRINCIPAL TOKEN` pair per line (`#` starts a comment); each
    /// sends its token as `Authorization: Bearer <token>` and sees only its own tasks.
    #[arg(long, value_name = "FILE")]
    auth_tokens: Option<PathBuf>,
    /// Accept JWT bearer tokens signed by a key of this JWKS file (RSA, EC P-256/P-384 or
    /// Ed25519 public keys).
    #[arg(long, value_name = "FILE")]
    jwt_jwks: Option<PathBuf>,
    /// The `iss` a JWT must have.
    #[arg(long, value_name = "ISSUER", requires = "jwt_jwks")]
    jwt_issuer: Option<String>,
    /// The audience a JWT's `aud` must hold.
    #[arg(long, value_name = "AUDIENCE", requires = "jwt_jwks")]
    jwt_audience: Option<String>,
    /// The JWT claim naming the caller.
    #[arg(long, value_name = "CLAIM", default_value = "sub")]
    jwt_principal_claim: String,
    /// The JWT claim naming the caller's tenant (default: no tenants).
    #[arg(long, value_name = "CLAIM", requires = "jwt_jwks")]
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
    pub fn apply(self, mut builder: ServerBuilder) -> Result<ServerBuilder, String> {
        if let Some(path) = self.auth_tokens {
            let table = TokenTable::from_file(&path).map_err(|e| format!("--auth-tokens: {e}"))?;
            tracing::info!(callers = table.len(), "callers authenticated by token");
            builder = builder.auth_tokens(table);
        }
        if let Some(path) = self.jwt_jwks {
            let mut jwt = JwtAuth::from_jwks_file(&path)
                .map_err(|e| format!("--jwt-jwks: {e}"))?
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
        Ok(builder)
    }
}
