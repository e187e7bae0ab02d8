//! Bearer tokens the simulated cluster issues and accepts: for the users its kubeconfigs name (kube-apiserver's
//! static token file) and for ServiceAccounts (TokenRequest, `kubectl create token`).
//!
//! Tokens are self-contained and signed, shaped like the JWTs a real server issues (`header.claims.signature`,
//! base64url, with `sub`, `aud`, `exp`, `jti` and the `kubernetes.io` claims of a bound ServiceAccount token),
//! so the cluster keeps no table of them and nothing grows with the tokens it hands out. The signature is a
//! keyed SipHash under two random keys drawn when the cluster starts: unforgeable for a client that does not
//! hold the keys, which is all a test cluster on loopback needs; it is not RS256, and the header says so.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use std::hash::{BuildHasher, RandomState};

/// The issuer and the one audience the API server accepts (`--service-account-issuer`, `--api-audiences` of a
/// kind or kubeadm cluster).
pub const API_AUDIENCE: &str = "https://kubernetes.default.svc.cluster.local";

const HEADER: &str = r#"{"alg":"berth-sim-siphash","kid":"berth-sim","typ":"JWT"}"#;

/// What a token says about its bearer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    /// The username.
    pub sub: String,
    pub aud: Vec<String>,
    pub iat: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<i64>,
    /// Seconds since the epoch; none for the users of the cluster's kubeconfigs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exp: Option<i64>,
    pub jti: String,
    /// A user's groups (static users only; a ServiceAccount's follow from its name).
    #[serde(default, skip_serializing_if = "Vec::is_empty", rename = "berth.dev/groups")]
    pub groups: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "kubernetes.io")]
    pub kubernetes: Option<KubernetesClaims>,
}

/// The `kubernetes.io` claims of a ServiceAccount token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KubernetesClaims {
    pub namespace: String,
    pub serviceaccount: ServiceAccountClaim,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceAccountClaim {
    pub name: String,
    /// The ServiceAccount's uid when the token was issued; empty accepts any ServiceAccount of that name.
    pub uid: String,
}

/// Signs and verifies tokens with the keys of one cluster.
#[derive(Debug, Clone)]
pub struct TokenIssuer {
    keys: [RandomState; 2],
}

impl Default for TokenIssuer {
    fn default() -> TokenIssuer {
        TokenIssuer::new()
    }
}

impl TokenIssuer {
    /// An issuer with fresh random keys.
    pub fn new() -> TokenIssuer {
        TokenIssuer { keys: [RandomState::new(), RandomState::new()] }
    }

    fn signature(&self, signed: &str) -> Vec<u8> {
        self.keys.iter().flat_map(|key| key.hash_one(signed).to_be_bytes()).collect()
    }

    pub fn issue(&self, claims: &Claims) -> String {
        // Serialising plain strings and numbers cannot fail; an empty claim set would fail verification.
        let claims = serde_json::to_vec(claims).unwrap_or_default();
        let signed = format!("{}.{}", URL_SAFE_NO_PAD.encode(HEADER), URL_SAFE_NO_PAD.encode(claims));
        let signature = URL_SAFE_NO_PAD.encode(self.signature(&signed));
        format!("{signed}.{signature}")
    }

    /// The claims of a token this issuer signed, if it is one and has not expired at `now` (seconds).
    pub fn verify(&self, token: &str, now: i64) -> Option<Claims> {
        let (signed, signature) = token.rsplit_once('.')?;
        let expected = self.signature(signed);
        let given = URL_SAFE_NO_PAD.decode(signature).ok()?;
        let matches = given.len() == expected.len()
            && given.iter().zip(&expected).fold(0u8, |difference, (left, right)| difference | (left ^ right)) == 0;
        if !matches {
            return None;
        }
        let (_, claims) = signed.split_once('.')?;
        let claims: Claims = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(claims).ok()?).ok()?;
        let live = claims.exp.is_none_or(|exp| now < exp) && claims.nbf.is_none_or(|nbf| nbf <= now);
        live.then_some(claims)
    }
}

/// A random token id (a UUID's shape), for `jti`.
pub fn random_id() -> String {
    let hex: String = (0..32).map(|_| char::from(b"0123456789abcdef"[fastrand::usize(..16)])).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(exp: Option<i64>) -> Claims {
        Claims {
            iss: API_AUDIENCE.to_string(),
            sub: "alice".to_string(),
            aud: vec![API_AUDIENCE.to_string()],
            iat: 100,
            nbf: None,
            exp,
            jti: random_id(),
            groups: vec!["team-a".to_string()],
            kubernetes: None,
        }
    }

    #[test]
    fn a_token_verifies_with_its_issuer_only_and_until_it_expires() {
        let issuer = TokenIssuer::new();
        let original = claims(Some(200));
        let token = issuer.issue(&original);
        assert_eq!(issuer.verify(&token, 150), Some(original));
        assert!(issuer.verify(&token, 200).is_none(), "expired");
        assert!(TokenIssuer::new().verify(&token, 150).is_none(), "another cluster's key");
        let tampered = token.replacen('.', ".e30", 1);
        assert!(issuer.verify(&tampered, 150).is_none(), "changed claims");
        assert!(issuer.verify("berth-sim", 150).is_none(), "not a token");
    }

    #[test]
    fn tokens_are_shaped_like_jwts() {
        let token = TokenIssuer::new().issue(&claims(None));
        assert_eq!(token.split('.').count(), 3);
        assert_eq!(random_id().len(), 36);
    }
}
