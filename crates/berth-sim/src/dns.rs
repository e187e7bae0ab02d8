//! DNS names as Kubernetes reads them (`k8s.io/apimachinery/pkg/util/validation`): RFC 1123 labels and
//! subdomains, RFC 1035 labels. Object names follow them, and so do the `k8s-short-name` and `k8s-long-name`
//! formats of CRD schemas.

/// The longest label.
pub const MAX_LABEL: usize = 63;
/// The longest subdomain.
pub const MAX_SUBDOMAIN: usize = 253;

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
pub fn is_label(text: &str) -> bool {
    let bytes = text.as_bytes();
    let edge = |byte: &u8| byte.is_ascii_lowercase() || byte.is_ascii_digit();
    !bytes.is_empty()
        && bytes.first().is_some_and(edge)
        && bytes.last().is_some_and(edge)
        && bytes.iter().all(|byte| edge(byte) || *byte == b'-')
}

/// Labels joined by dots (the length is checked apart).
pub fn is_subdomain(text: &str) -> bool {
    text.split('.').all(is_label)
}

/// `[a-z]([-a-z0-9]*[a-z0-9])?` (the length is checked apart).
pub fn is_dns1035_label(text: &str) -> bool {
    is_label(text) && text.starts_with(|character: char| character.is_ascii_lowercase())
}
