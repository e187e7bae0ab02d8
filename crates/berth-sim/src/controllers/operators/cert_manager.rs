//! cert-manager (v1.x): issuers set up, certificates issued, requests approved and signed, ACME orders and
//! challenges valid. Reasons and messages are cert-manager's: `pkg/issuer/*/setup.go` for issuers (an ACME
//! issuer registers its account, a CA issuer verifies its key pair, a self-signed one is ready at once),
//! `pkg/controller/certificates/readiness` and `issuing` for certificates, `certificaterequests` for requests.
//!
//! The real controller also writes the certificate's Secret; the simulated one writes statuses only.

use super::{Outcome, Reconcile};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    match reconcile.kind {
        "Issuer" | "ClusterIssuer" => Some(issuer(reconcile)),
        "Certificate" => Some(certificate(reconcile)),
        "CertificateRequest" => Some(request(reconcile)),
        "Order" | "Challenge" => Some(acme(reconcile)),
        _ => None,
    }
}

/// The Ready reason and message each issuer type sets once set up.
fn issuer_ready(reconcile: &Reconcile<'_>) -> (&'static str, &'static str) {
    let types: [(&str, (&str, &str)); 5] = [
        ("acme", ("ACMEAccountRegistered", "The ACME account was registered with the ACME server")),
        ("ca", ("KeyPairVerified", "Signing CA verified")),
        ("vault", ("VaultVerified", "Vault verified")),
        ("venafi", ("Venafi issuer started", "Venafi issuer started")),
        ("selfSigned", ("IsReady", "")),
    ];
    types
        .iter()
        .find(|(field, _)| reconcile.value(&format!("spec.{field}")).is_some())
        .map_or(("IsReady", ""), |(_, ready)| *ready)
}

fn issuer(reconcile: &Reconcile<'_>) -> Value {
    let written = reconcile.written();
    match reconcile.outcome {
        // Setting up (an ACME registration under way) shows no condition yet.
        Outcome::Progressing => written.build(),
        Outcome::Ready => {
            let (reason, message) = issuer_ready(reconcile);
            let mut written = written.condition("Ready", "True", reason, message);
            if let Some(server) = reconcile.value("spec.acme.server").and_then(Value::as_str) {
                let account = format!("{}/acme/acct/{}", server.trim_end_matches("/directory"), &reconcile.digest(8));
                let email = reconcile.text("spec.acme.email");
                written = written.field("acme", json!({"uri": account, "lastRegisteredEmail": email}));
            }
            written.build()
        }
        Outcome::Failed(message) => {
            let reason =
                if reconcile.value("spec.acme").is_some() { "ErrRegisterACMEAccount" } else { "ErrInitIssuer" };
            written.condition("Ready", "False", reason, message).build()
        }
    }
}

fn certificate(reconcile: &Reconcile<'_>) -> Value {
    const ISSUING: &str = "Issuing certificate as Secret does not exist";
    let written = reconcile.written();
    match reconcile.outcome {
        Outcome::Progressing => written
            .condition("Ready", "False", "DoesNotExist", ISSUING)
            .condition("Issuing", "True", "DoesNotExist", ISSUING)
            .build(),
        Outcome::Ready => {
            let (not_before, not_after, renewal) = validity(reconcile);
            written
                .without("Issuing")
                .condition("Ready", "True", "Ready", "Certificate is up to date and has not expired")
                .field("notBefore", json!(not_before))
                .field("notAfter", json!(not_after))
                .field("renewalTime", json!(renewal))
                .field("revision", json!(1))
                .remove("lastFailureTime")
                .remove("failedIssuanceAttempts")
                .build()
        }
        Outcome::Failed(message) => {
            let failed = format!("The certificate request has failed to complete and will be retried: {message}");
            let time = written.time().to_string();
            written
                .condition("Ready", "False", "DoesNotExist", ISSUING)
                .condition("Issuing", "False", "Failed", &failed)
                .field("lastFailureTime", json!(time))
                .field("failedIssuanceAttempts", json!(1))
                .build()
        }
    }
}

/// `notBefore`, `notAfter` and `renewalTime` of a certificate issued now: `spec.duration` (90 days by default),
/// renewed `spec.renewBefore` ahead (a third of the duration by default).
fn validity(reconcile: &Reconcile<'_>) -> (String, String, String) {
    let issued: jiff::Timestamp = reconcile.time.parse().unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let hours = |field: &str, default: i64| -> i64 {
        let text = reconcile.text(field);
        crate::duration::parse_duration(text)
            .map_or(default, |duration| i64::try_from(duration.as_secs() / 3600).unwrap_or(default))
    };
    let duration = hours("spec.duration", 2160);
    let renew_before = hours("spec.renewBefore", duration / 3);
    let at = |hours: i64| {
        crate::store::kube_time(issued.checked_add(jiff::SignedDuration::from_hours(hours)).unwrap_or(issued))
    };
    (at(0), at(duration), at(duration - renew_before))
}

fn request(reconcile: &Reconcile<'_>) -> Value {
    let written = reconcile.written().condition(
        "Approved",
        "True",
        "cert-manager.io",
        "Certificate request has been approved by cert-manager.io",
    );
    match reconcile.outcome {
        Outcome::Progressing => {
            written.condition("Ready", "False", "Pending", "Waiting on certificate issuance from issuer").build()
        }
        Outcome::Ready => {
            written.condition("Ready", "True", "Issued", "Certificate fetched from issuer successfully").build()
        }
        Outcome::Failed(message) => {
            let time = written.time().to_string();
            written.condition("Ready", "False", "Failed", message).field("failureTime", json!(time)).build()
        }
    }
}

/// Orders and challenges report the ACME state.
fn acme(reconcile: &Reconcile<'_>) -> Value {
    let challenge = reconcile.kind == "Challenge";
    let written = reconcile.written();
    match reconcile.outcome {
        Outcome::Progressing if challenge => written
            .field("state", json!("pending"))
            .field("processing", json!(true))
            .field("presented", json!(true))
            .build(),
        Outcome::Progressing => written.field("state", json!("pending")).build(),
        Outcome::Ready if challenge => written
            .field("state", json!("valid"))
            .field("processing", json!(false))
            .field("presented", json!(false))
            .field("reason", json!("Successfully authorized domain"))
            .build(),
        Outcome::Ready => written.field("state", json!("valid")).remove("reason").build(),
        Outcome::Failed(message) if challenge => written
            .field("state", json!("errored"))
            .field("processing", json!(false))
            .field("reason", json!(message))
            .build(),
        Outcome::Failed(message) => written.field("state", json!("errored")).field("reason", json!(message)).build(),
    }
}
